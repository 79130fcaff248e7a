"""ADL103: a statement that cannot run inside a transaction block, inside one."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.transactions import no_transaction_block


class ConcurrentlyInTransaction(Rule):
    """
    ## What it does
    Flags statements PostgreSQL refuses to run inside a transaction block when the
    runner's real transaction model puts them in one: `CREATE INDEX CONCURRENTLY`,
    `DROP INDEX CONCURRENTLY`, `REINDEX ... CONCURRENTLY`, `DETACH PARTITION
    CONCURRENTLY`, `VACUUM`, `REINDEX SCHEMA|DATABASE|SYSTEM`, `CLUSTER` without a
    table, `CREATE|DROP DATABASE`, `CREATE|DROP TABLESPACE` and `ALTER SYSTEM`. A DO
    block always runs in a transaction. With `--runner psql` a statement is in a block
    only between BEGIN and COMMIT; with `--runner alembic` Alembic's own transaction
    (or the explicit BEGIN/COMMIT of `alembic upgrade --sql`) counts. (`ALTER TYPE ...
    ADD VALUE` before 12 is enum-add-value-in-transaction's; syntax the target version
    lacks is syntax-not-in-target-version's.)

    ## Why is this bad?
    The statement fails with "cannot run inside a transaction block" and the migration
    stops: at deploy time, not in review.

    ## Example
    ```sql
    BEGIN;
    CREATE INDEX CONCURRENTLY idx_runs_status ON agent.runs (status);
    COMMIT;
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY idx_runs_status ON agent.runs (status);
    ```

    ## In an Alembic migration
    Alembic runs each revision in a transaction; step out of it for this statement:
    ```python
    with op.get_context().autocommit_block():
        op.create_index("idx_runs_status", "runs", ["status"], schema="agent",
                        postgresql_concurrently=True)
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/sql-reindex.html
    - https://alembic.sqlalchemy.org/en/latest/api/runtime.html#alembic.runtime.migration.MigrationContext.autocommit_block
    """

    code = "ADL103"
    name = "concurrently-in-transaction"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if not statement.in_transaction_block:
            return
        what = no_transaction_block(statement.node, context.pg_version)
        if what is None:
            return
        where = "a DO block (a function)" if statement.in_do_block else "a transaction block"
        yield Violation(
            message=f"{what} cannot run inside {where}: the migration fails here.",
            fix=_fix(context, statement),
        )


def _fix(context: Context, statement: Statement) -> str:
    if statement.in_do_block:
        return "Move it out of the DO block into a top-level statement of its own."
    if context.runner == "alembic":
        return "Run it inside `with op.get_context().autocommit_block():`."
    return "Run it as its own statement, outside BEGIN ... COMMIT."
