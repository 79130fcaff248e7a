"""ADT102 scan-under-write-lock."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class ScanUnderWriteLock(TraceRule):
    """A statement read a whole existing table while holding a lock that blocks writes.

    ## What it does
    Reports a statement that read a whole existing table while holding a lock that
    blocks writes. The read shows in the table's sequential-scan counter
    (`pg_stat_xact_user_tables.seq_scan`: an index build or a constraint validation
    reads every row); the lock is one on an existing relation that writers wait for: a
    plain `CREATE INDEX` (SHARE), `ADD FOREIGN KEY` without `NOT VALID` (SHARE ROW
    EXCLUSIVE on both tables), `SET NOT NULL` without a CHECK constraint that proves
    it (ACCESS EXCLUSIVE). A scan of a table the statement also rewrote is part of
    the rewrite (`table-rewrite` reports it).

    ## Why is this bad?
    Writers wait for the whole scan, and the scan takes as long as the table is big.
    The same check or index can be built while writes go on: PostgreSQL offers a form
    that scans under a lock that blocks nobody for each of these statements.

    ## Example
    ```sql
    CREATE INDEX orders_customer_idx ON public.orders (customer_id);
    ```
    What trace observed:
    ```
    locks held   Share public.orders
    scanned      public.orders
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY orders_customer_idx ON public.orders (customer_id);

    ALTER TABLE public.orders ADD CONSTRAINT orders_customer_fkey
        FOREIGN KEY (customer_id) REFERENCES public.customers (id) NOT VALID;
    -- in a later transaction: SHARE UPDATE EXCLUSIVE, reads and writes go on
    ALTER TABLE public.orders VALIDATE CONSTRAINT orders_customer_fkey;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-VALIDATE-CONSTRAINT
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    """

    code = "ADT102"
    name = "scan-under-write-lock"
    severity = "warning"

    def check(self, seen: Observed) -> Iterator[Finding]:
        trace = seen.trace
        scanned = [r for r in trace.scanned if r in seen.existing]
        if not scanned or not seen.write_blocking or set(scanned) <= set(trace.rewritten):
            return  # nothing read, or read under a harmless lock, or a rewrite (reported as one)
        lock = seen.write_blocking[0]
        yield self.at(
            seen,
            scanned[0],
            f"read all of {', '.join(scanned)} while holding {lock.mode} on {lock.relation}: "
            "writers wait for the scan.",
            "Build indexes CONCURRENTLY; add constraints NOT VALID and VALIDATE them in a later transaction.",
        )
