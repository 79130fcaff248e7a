"""ADL105: a statement that fails when the migration is re-run after a partial failure."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import AlterTableType, ObjectType

from agentddl.checks.lint.later import built, context_of, first_after, runs_after_commit
from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import is_new_relation, name_list
from agentddl.checks.pg.columns import commands_of
from agentddl.checks.pg.transactions import no_transaction_block

# CREATE statements that have an IF NOT EXISTS form, and what to call them.
_CREATES: dict[type, str] = {
    ast.CreateStmt: "CREATE TABLE",
    ast.IndexStmt: "CREATE INDEX",
    ast.CreateSeqStmt: "CREATE SEQUENCE",
    ast.CreateSchemaStmt: "CREATE SCHEMA",
    ast.CreateTableAsStmt: "CREATE TABLE AS / MATERIALIZED VIEW",
    ast.CreateExtensionStmt: "CREATE EXTENSION",
}
# Statements that run outside any transaction block and can fail on an existing
# table's data or locks (a duplicate key, a deadlock, a timeout).
_NON_TRANSACTIONAL = (ast.IndexStmt, ast.DropStmt, ast.ReindexStmt, ast.AlterTableStmt)
# Alembic's bookkeeping table: online, Alembic creates it only when it is missing.
_ALEMBIC_VERSION = "alembic_version"


class NotRerunnable(Rule):
    """
    ## What it does
    Flags a statement that makes the migration fail when it is run again after a
    partial failure. Three cases:
    - `CREATE INDEX CONCURRENTLY name` on an existing table without `IF NOT EXISTS`
      and with no `DROP INDEX [CONCURRENTLY] IF EXISTS name` before it;
    - `ALTER TABLE ... ADD COLUMN` without `IF NOT EXISTS` that commits on its own
      (autocommit: `--runner psql` outside `BEGIN`, or an Alembic `autocommit_block()`)
      while later statements of the file still run;
    - a `CREATE TABLE|INDEX|SEQUENCE|SCHEMA|EXTENSION` (or `CREATE TABLE AS`) or an
      `ADD COLUMN` without `IF NOT EXISTS` that is committed before a later
      non-transactional step on an existing table (`CREATE INDEX CONCURRENTLY`,
      `DROP INDEX CONCURRENTLY`, `REINDEX CONCURRENTLY`, `DETACH PARTITION
      CONCURRENTLY`): an Alembic revision's transaction commits where its
      `autocommit_block()` starts; or one that autocommits after such a step (the file
      cannot run as one transaction) while later statements still run.

    Statements inside `DO` blocks, objects the statement's own transaction is still
    free to roll back, and Alembic's `alembic_version` table are not flagged. A
    warning: the migration is not unsafe for production, but the retry fails.

    ## Why is this bad?
    A migration that fails half-way is re-run after the cause is fixed. What the first
    run committed is still there, so the re-run stops at the first statement that
    insists on creating it again ("relation already exists", "column already exists").
    `CREATE INDEX CONCURRENTLY` is the common case: when it fails (a duplicate key for a
    unique index, a deadlock, a `lock_timeout` or `statement_timeout`) it leaves an
    INVALID index behind, which is never used for reads but is still updated on every
    write, and the re-run fails on its name.

    ## Example
    ```sql
    CREATE INDEX CONCURRENTLY idx_runs_status ON agent.runs (status);
    ```

    ## Use instead
    ```sql
    DROP INDEX CONCURRENTLY IF EXISTS agent.idx_runs_status;  -- an invalid leftover
    CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_runs_status ON agent.runs (status);
    ```
    `IF NOT EXISTS` alone would keep an invalid index from the failed run: drop it
    first (or check `pg_index.indisvalid`). Give `ADD COLUMN` and `CREATE` statements
    `IF NOT EXISTS`, or keep them in the same transaction as the steps that may fail.

    ## In an Alembic migration
    ```python
    with op.get_context().autocommit_block():
        op.drop_index("idx_runs_status", table_name="runs", schema="agent",
                      postgresql_concurrently=True, if_exists=True)
        op.create_index("idx_runs_status", "runs", ["status"], schema="agent",
                        postgresql_concurrently=True, if_not_exists=True)
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/sql-altertable.html
    - https://alembic.sqlalchemy.org/en/latest/api/runtime.html#alembic.runtime.migration.MigrationContext.autocommit_block
    """

    code = "ADL105"
    name = "not-rerunnable"
    severity = "warning"
    node_types = (*_CREATES, ast.AlterTableStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if statement.in_do_block:
            return
        node = statement.node
        if isinstance(node, ast.IndexStmt) and node.concurrent:
            if not statement.in_transaction_block:  # inside one it fails at once (ADL103)
                yield from _invalid_index_left(node, context)
            return
        what = _not_idempotent(node, context)
        if what is None:
            return
        if isinstance(node, ast.AlterTableStmt) and not statement.in_transaction_block:
            if runs_after_commit(statement, context):
                yield _committed(what, "it commits on its own and later statements may fail", context)
            return
        step = _later_non_transactional(statement, context)
        if step is not None:
            yield _committed(what, f"the {step} later in this file commits it first and may fail", context)
        elif not statement.in_transaction_block and runs_after_commit(statement, context):
            earlier = _earlier_non_transactional(statement, context)
            if earlier is not None:  # the file cannot run as one transaction: it autocommits
                why = f"after the {earlier} this file runs statement by statement, and later ones may fail"
                yield _committed(what, why, context)


def _earlier_non_transactional(statement: Statement, context: Context) -> str | None:
    """The first non-transactional step on an existing relation before `statement`."""
    steps = built(context, "non-transactional", lambda: _non_transactional(context))
    if not steps or steps[0].index >= statement.index:
        return None
    return no_transaction_block(steps[0].node, context.pg_version)


def _invalid_index_left(node: ast.IndexStmt, context: Context) -> Iterator[Violation]:
    if node.if_not_exists or not node.idxname or is_new_relation(node.relation, context):
        return
    if _dropped_first(node.idxname, context):
        return
    name = node.idxname
    yield Violation(
        message=f"If this build fails it leaves the INVALID index {name} behind, and a re-run"
        f" fails with 'relation \"{name}\" already exists'.",
        fix=_index_fix(name, context),
        by_size=False,
    )


def _dropped_first(index: str, context: Context) -> bool:
    """An earlier `DROP INDEX [CONCURRENTLY] IF EXISTS` of the same index name."""
    for drop in context.earlier_of(ast.DropStmt):
        node = drop.node
        if node.removeType != ObjectType.OBJECT_INDEX or not node.missing_ok:
            continue
        if any(name_list(names)[-1:] == [index] for names in node.objects or ()):
            return True
    return False


def _not_idempotent(node: object, context: Context) -> str | None:
    """What the statement creates without IF NOT EXISTS, or None."""
    if isinstance(node, ast.AlterTableStmt):
        if is_new_relation(node.relation, context):
            return None
        for cmd in commands_of(node, AlterTableType.AT_AddColumn):
            if not cmd.missing_ok and isinstance(cmd.def_, ast.ColumnDef):
                return f"ADD COLUMN {cmd.def_.colname}"
        return None
    kind = _CREATES.get(type(node))
    if kind is None or getattr(node, "if_not_exists", True):
        return None
    if (
        isinstance(node, ast.CreateStmt)
        and node.relation is not None
        and node.relation.relname == _ALEMBIC_VERSION
    ):
        return None
    return kind


def _later_non_transactional(statement: Statement, context: Context) -> str | None:
    """The first later step that runs outside a transaction, on an existing relation,
    after `statement`'s transaction has committed; None when there is none."""
    found = first_after(statement, context, "non-transactional", lambda: _non_transactional(context))
    return None if found is None else no_transaction_block(found.node, context.pg_version)


def _non_transactional(context: Context) -> list[Statement]:
    """Every top-level statement of the migration that runs outside a transaction block
    and works on an existing relation (built once, from the History)."""
    assert context.history is not None
    found = []
    for kind in _NON_TRANSACTIONAL:
        for step in context.history.all(kind):
            if step.in_do_block or step.in_transaction_block:
                continue
            if no_transaction_block(step.node, context.pg_version) is None:
                continue
            node = step.node
            if isinstance(node, ast.IndexStmt) and is_new_relation(node.relation, context_of(step, context)):
                continue
            found.append(step)
    return sorted(found, key=lambda step: step.index)


def _committed(what: str, why: str, context: Context) -> Violation:
    return Violation(
        message=f"{what} fails when the migration is re-run after a partial failure: {why}.",
        fix=_create_fix(context),
        by_size=False,
    )


def _index_fix(name: str, context: Context) -> str:
    if context.runner == "alembic":
        return (
            "Drop the leftover first: op.drop_index(..., postgresql_concurrently=True,"
            " if_exists=True), then op.create_index(..., if_not_exists=True)."
        )
    return (
        f"Run DROP INDEX CONCURRENTLY IF EXISTS {name}; before it (an invalid leftover),"
        " and use CREATE INDEX CONCURRENTLY IF NOT EXISTS."
    )


def _create_fix(context: Context) -> str:
    if context.runner == "alembic":
        return "Add if_not_exists=True (or IF NOT EXISTS in op.execute), or keep it in the same transaction."
    if context.pg_version < 10:  # ADD COLUMN IF NOT EXISTS arrived in 9.6
        return "Add IF NOT EXISTS (ADD COLUMN has it from 9.6), or run it in one transaction with the rest."
    return "Add IF NOT EXISTS, or run it in one transaction with the steps that may fail."
