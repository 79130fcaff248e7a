"""ADT101 table-rewrite."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class TableRewrite(TraceRule):
    """A statement rewrote an existing table or index while writers were locked out.

    ## What it does
    Reports a statement that rewrote a table or index that existed before the migration
    while holding a lock that blocks writes. A rewrite gives the relation new storage
    (its `pg_class.relfilenode` changes): every row is copied. Trace compares the catalog before and after the
    statement on the server it ran on, so it reports the rewrites that happened on
    that version, not the ones a rule of thumb predicts. A rewrite too quick for the
    lock watcher to see its locks counts when it rewrote a table (`VACUUM FULL`,
    `CLUSTER`). Not reported: `REINDEX CONCURRENTLY` (a new copy of an index built
    under SHARE UPDATE EXCLUSIVE, which blocks no reader or writer), `TRUNCATE` (new,
    empty files: `table-emptied` reports it) and relations the migration created.

    ## Why is this bad?
    A rewrite copies every row and rebuilds every index of the table. `ALTER TABLE`
    does it under ACCESS EXCLUSIVE: no query reads or writes the table until the copy
    is done, and the copy takes as long as the table is big: milliseconds on a test
    database, minutes in production. It also needs disk space for a second copy of the
    table and writes all of it to the WAL (replicas fall behind).

    ## Example
    ```sql
    ALTER TABLE public.orders ALTER COLUMN qty TYPE bigint;
    ```
    What trace observed (int to bigint is not binary coercible):
    ```
    locks held   AccessExclusive public.orders
    rewritten    public.orders, public.orders_pkey (new relfilenodes)
    ```

    ## Use instead
    Change nothing in place that forces a rewrite: add a new column, fill it in
    batches, switch readers and writers to it, and drop the old one later.
    ```sql
    ALTER TABLE public.orders ADD COLUMN qty_big bigint;
    UPDATE public.orders SET qty_big = qty WHERE id BETWEEN 1 AND 5000;  -- batch by batch
    ```
    A non-volatile default (`DEFAULT now()`, a constant) is stored in the catalog
    without a rewrite (11+); `clock_timestamp()` or `random()` rewrite. A rewrite that
    cannot be avoided belongs in a maintenance window.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    - https://www.postgresql.org/docs/current/storage-file-layout.html
    """

    code = "ADT101"
    name = "table-rewrite"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        trace = seen.trace
        rewritten = [r for r in trace.rewritten if r in seen.existing]
        if trace.emptied:
            return  # TRUNCATE: new, empty files, nothing copied (table-emptied says what happened)
        unseen_table_rewrite = not trace.locks and bool(set(trace.rewritten_tables) & seen.existing)
        if not rewritten or not (seen.write_blocking or unseen_table_rewrite):
            return
        size = sum(trace.sizes.get(r, 0) for r in rewritten)
        yield self.at(
            seen,
            rewritten[0],
            f"rewrote {', '.join(rewritten)} ({size} bytes here): every row is copied, every index "
            f"rebuilt, under {trace.strongest_lock or 'an exclusive lock'}.",
            "Avoid the rewrite (a new column + batched backfill + swap; a non-volatile default) "
            "or schedule it in a maintenance window.",
        )
