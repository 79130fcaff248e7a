"""ADT103 long-write-lock."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class LongWriteLock(TraceRule):
    """A lock that blocks writes on an existing table was held longer than --max-lock-ms.

    ## What it does
    Reports a lock that blocks writes on an existing table held longer than
    `--max-lock-ms` (default 1000 ms). The lock is one the statement took (SHARE or
    stronger) on a relation that existed before the migration; the time runs from the statement's
    start until its transaction ended (`COMMIT` or `ROLLBACK`: table locks are only
    released then), less the tracer's own reads; so a quick `ALTER TABLE` followed by
    slow work in the same transaction counts the slow work too.

    ## Why is this bad?
    Every `INSERT`, `UPDATE` and `DELETE` on the table waits for as long as the lock is
    held (with ACCESS EXCLUSIVE every `SELECT` too), and every query that arrives
    behind them queues up: connection pools fill and request timeouts fire. The time
    measured here on the scratch database is a lower bound: production tables are
    bigger and busier.

    ## Example
    ```sql
    BEGIN;
    ALTER TABLE public.orders ADD COLUMN priority int;  -- ACCESS EXCLUSIVE until COMMIT
    UPDATE public.orders SET priority = 0;               -- every row, under that lock
    COMMIT;
    ```
    What trace observed at the `ALTER TABLE`:
    ```
    locks held   AccessExclusive public.orders
    held ms      2400 (limit 1000): reads, writes, claims wait that long
    ```

    ## Use instead
    Keep the transaction that takes a strong lock short, and do the slow part outside
    it, in batches or with the non-blocking forms (`CONCURRENTLY`, `NOT VALID` +
    `VALIDATE CONSTRAINT`):
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE public.orders ADD COLUMN priority int;  -- alone: milliseconds
    UPDATE public.orders SET priority = 0 WHERE id BETWEEN 1 AND 5000;  -- then batch by batch
    ```

    ## References
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    - https://www.postgresql.org/docs/current/sql-altertable.html
    """

    code = "ADT103"
    name = "long-write-lock"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        held, limit = seen.trace.lock_held_ms, seen.limits.max_lock_ms
        if not seen.took_write_blocking_lock or held <= limit:
            return
        lock = seen.strongest
        yield self.at(
            seen,
            lock.relation,
            f"held {lock.mode} on {lock.relation} for {held:.0f} ms (limit {limit:.0f} ms): "
            f"{', '.join(lock.blocks)} wait that long.",
            "Split the change into short transactions, use CONCURRENTLY / NOT VALID forms, or batch it.",
        )
