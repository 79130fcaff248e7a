"""ADT106 statement-failed."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class StatementFailed(TraceRule):
    """A statement failed on the scratch database, and the migration stopped there.

    ## What it does
    Reports a statement that failed on the scratch database. For example
    `lock_timeout` fired while it queued behind another session's lock (55P03), a
    unique index met duplicate rows (23505), an object it names does not exist in the
    current schema, or a deferred constraint failed at `COMMIT`. The migration stops
    there, as psql with `ON_ERROR_STOP` and Alembic stop, and its transaction rolls
    back. A failed `CREATE INDEX CONCURRENTLY` or
    `REINDEX CONCURRENTLY` leaves an invalid index behind; the finding names it.

    ## Why is this bad?
    What fails on a copy of the schema fails in production, where it may fail halfway:
    statements that ran outside a transaction block (every `CONCURRENTLY` one) are
    already committed. An invalid index is ignored by every query yet updated by every
    write, and a retry with `IF NOT EXISTS` keeps it as it is.

    ## Example
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY orders_qty_key ON public.orders (qty);
    ```
    What trace observed:
    ```
    error          23505: could not create unique index "orders_qty_key"
    left invalid   public.orders_qty_key
    ```

    ## Use instead
    ```sql
    DROP INDEX CONCURRENTLY IF EXISTS public.orders_qty_key;
    -- remove the duplicate rows (in batches), then build it again
    CREATE UNIQUE INDEX CONCURRENTLY orders_qty_key ON public.orders (qty);
    ```
    A lock timeout is the migration working as intended: retry it with a backoff.

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT
    - https://www.postgresql.org/docs/current/errcodes-appendix.html
    """

    code = "ADT106"
    name = "statement-failed"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        trace = seen.trace
        if trace.error is None:
            return
        message = f"failed: {trace.error}; the migration stops here and its transaction rolls back."
        fix = "Retry with backoff when it is a lock timeout; fix the statement otherwise."
        if trace.left_invalid:  # docs, CREATE INDEX: "Building Indexes Concurrently"
            left = ", ".join(trace.left_invalid)
            message = (
                f"failed: {trace.error}; it left the invalid index {left} behind: no query uses it, "
                "every write still maintains it, and a retry with IF NOT EXISTS would keep it as it is."
            )
            fix = f"DROP INDEX CONCURRENTLY {left}, fix the cause (e.g. duplicate rows), then build it again."
        relation = trace.left_invalid[0] if trace.left_invalid else seen.first_locked()
        yield self.at(seen, relation, message, fix)
