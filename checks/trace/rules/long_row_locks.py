"""ADT108 long-row-locks."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class LongRowLocks(TraceRule):
    """Rows an UPDATE or DELETE changed stayed locked longer than --max-lock-ms.

    ## What it does
    Reports an `UPDATE` or `DELETE` whose changed rows stayed locked longer than
    `--max-lock-ms` (default 1000 ms): an unbatched backfill or purge. The rows are
    the ones it changed in existing tables (the session's own
    `pg_stat_xact_user_tables.n_tup_upd + n_tup_del`); the time runs from its start
    until its transaction ended. Not when the statement also took a
    write-blocking table lock (`long-write-lock` reports that).

    ## Why is this bad?
    Every row an `UPDATE` or `DELETE` changes stays locked until its transaction
    ends, under a table lock (ROW EXCLUSIVE) that looks harmless. Any writer of one of
    those rows (a heartbeat, a status change, a claim) waits until the commit. The
    whole-table version also leaves a dead copy of every row that vacuum cannot remove
    before the commit, and writes it all to the WAL at once.

    ## Example
    ```sql
    BEGIN;
    UPDATE public.orders SET qty = qty + 1;
    SELECT pg_sleep(1.1);  -- stands for the time a big table's update takes
    COMMIT;
    ```
    What trace observed at the `UPDATE`:
    ```
    locks held   RowExclusive public.orders
    written      20000 rows of public.orders, locked until COMMIT 1100 ms later
    ```

    ## Use instead
    Batches of a few thousand rows, each committed on its own:
    ```sql
    UPDATE public.orders SET qty = qty + 1 WHERE id BETWEEN 1 AND 5000;
    -- COMMIT, then the next range
    ```

    ## References
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-ROWS
    - https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-ALL-TABLES-VIEW
    - https://www.postgresql.org/docs/current/routine-vacuuming.html
    """

    code = "ADT108"
    name = "long-row-locks"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        trace, limit = seen.trace, seen.limits.max_lock_ms
        written = {r: n for r, n in trace.written.items() if r in seen.existing}
        if not written or seen.took_write_blocking_lock or trace.lock_held_ms <= limit:
            return
        rows = ", ".join(f"{n} rows of {r}" for r, n in sorted(written.items()))
        yield self.at(
            seen,
            min(written),
            f"updated or deleted {rows}, locked until commit {trace.lock_held_ms:.0f} ms later "
            f"(limit {limit:.0f} ms): writes to those rows wait that long.",
            "Batch it: a few thousand rows per transaction (WHERE id BETWEEN ... or a LIMITed "
            "subquery), committed one after the other.",
        )
