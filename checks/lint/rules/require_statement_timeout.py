"""ADL107: a statement that scans or rewrites an existing table under a write-blocking
lock while no statement_timeout is in force."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ConstrType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import option_enabled
from agentddl.checks.pg.columns import added_constraints, commands_of, is_validating
from agentddl.checks.pg.earlier import is_new
from agentddl.checks.pg.locks import locks_taken

# ALTER TABLE commands that always copy the table (or, for SET TABLESPACE, its files).
_REWRITING = {
    AlterTableType.AT_SetLogged: "SET LOGGED",
    AlterTableType.AT_SetUnLogged: "SET UNLOGGED",
    AlterTableType.AT_SetTableSpace: "SET TABLESPACE",
}
_SCANNING_CONSTRAINTS = (
    ConstrType.CONSTR_CHECK,
    ConstrType.CONSTR_FOREIGN,
    ConstrType.CONSTR_PRIMARY,
    ConstrType.CONSTR_UNIQUE,
    ConstrType.CONSTR_EXCLUSION,
)
_SET_ACCESS_METHOD = getattr(AlterTableType, "AT_SetAccessMethod", None)


class RequireStatementTimeout(Rule):
    """
    ## What it does
    Flags a statement that reads or rewrites a whole existing table while holding a
    lock that blocks its writers, with no non-zero `statement_timeout` in force:
    `CREATE INDEX` without `CONCURRENTLY`, `ADD CONSTRAINT` that validates (a `CHECK`
    or `FOREIGN KEY` without `NOT VALID`, a `PRIMARY KEY`, `UNIQUE` or `EXCLUDE` that
    builds its index), `SET LOGGED|UNLOGGED|TABLESPACE|ACCESS METHOD`, `CLUSTER`,
    `VACUUM FULL`, `REINDEX` and `REFRESH MATERIALIZED VIEW` without `CONCURRENTLY`.
    Relations created earlier in the migration are empty and not flagged. The setting
    can come from `SET`, `SET LOCAL` or `set_config()`, like `lock_timeout`.

    Statements whose work depends on facts a migration does not show (a type change
    that may be free, `SET NOT NULL` that a CHECK may prove) are left to their own
    rules. `CONCURRENTLY` builds are not flagged: they block no writer, and a timeout
    that cancels one leaves an INVALID index behind.

    **Off by default**: every statement it flags is also flagged by the rule for the
    scan or rewrite itself, unless that finding is suppressed (a small table, a
    maintenance window) or milder by the table's size; where a team requires the
    timeout anyway, switch it on with `require-statement-timeout = "warning"` (or
    `"error"`) under `[tool.agentddl.rules]`. With
    `[tool.agentddl.options.require-statement-timeout] max_ms = N` a larger timeout is
    flagged too, and `required = false` keeps only that check.

    ## Why is this bad?
    The statement holds its lock for as long as the table takes to read or copy:
    minutes to hours on a large table, during which every write (or, under ACCESS
    EXCLUSIVE, every read) waits. `lock_timeout` only bounds the wait *for* the lock,
    not the time it is held; a `statement_timeout` makes the migration fail and roll
    back after a bounded outage instead of running on while the application is down.

    ## Example
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE agent.runs ADD CONSTRAINT runs_owner_fk
        FOREIGN KEY (owner_id) REFERENCES agent.owners (id);
    ```

    ## Use instead
    ```sql
    SET lock_timeout = '2s';
    SET statement_timeout = '30s';
    ALTER TABLE agent.runs ADD CONSTRAINT runs_owner_fk
        FOREIGN KEY (owner_id) REFERENCES agent.owners (id) NOT VALID;
    ```
    Better still avoid the blocking scan (see the rule that flags the statement itself);
    the timeout bounds what remains.

    ## In an Alembic migration
    ```python
    def upgrade() -> None:
        op.execute("SET LOCAL statement_timeout = '30s'")
        op.create_foreign_key("runs_owner_fk", "runs", "owners", ["owner_id"], ["id"],
                              source_schema="agent", referent_schema="agent")
    ```

    ## References
    - https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-STATEMENT-TIMEOUT
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    """

    code = "ADL107"
    name = "require-statement-timeout"
    timeout_policy = True
    severity = "warning"
    enabled_by_default = False  # see the docstring: it repeats the scan's own finding
    node_types = (
        ast.IndexStmt,
        ast.AlterTableStmt,
        ast.ClusterStmt,
        ast.VacuumStmt,
        ast.ReindexStmt,
        ast.RefreshMatViewStmt,
    )

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        work = _long_work(statement.node)
        target = getattr(statement.node, "relation", None)
        if work is None or is_new(target, context):
            return  # nothing to read, or a table this migration made (empty)
        blocked = [(rel, mode) for rel, mode in locks_taken(statement, context) if mode.blocks_writes()]
        if not blocked:
            return  # only new relations, or a lock that lets writers through
        relation = max(blocked, key=lambda lock: lock[1])[0]
        policy = context.options.get(self.name, {})
        max_ms = policy.get("max_ms")
        if context.statement_timeout_ms == 0 and policy.get("required", True):
            yield Violation(
                message=f"{work} holds its lock on {relation} for as long as the table takes to"
                " read, with no statement_timeout to end it.",
                fix=_fix(context, "Set a statement_timeout first"),
                by_size=False,
            )
        elif max_ms is not None and context.statement_timeout_ms > max_ms:
            yield Violation(
                message=f"statement_timeout is {context.statement_timeout_ms} ms, above the policy's"
                f" {max_ms} ms: {work} may block {relation} that long.",
                fix=_fix(context, f"Lower statement_timeout to at most {max_ms} ms"),
                by_size=False,
            )


def _long_work(node: Any) -> str | None:
    """What in the statement reads or copies a whole table, or None."""
    if isinstance(node, ast.IndexStmt):
        builds = not node.concurrent and node.relation is not None and node.relation.inh
        return "This index build" if builds else None  # ON ONLY builds nothing
    if isinstance(node, ast.AlterTableStmt):
        return _alter_table_work(node)
    if isinstance(node, ast.ClusterStmt) and node.relation is not None:
        return "CLUSTER"
    if isinstance(node, ast.VacuumStmt) and node.is_vacuumcmd and option_enabled(node.options, "full"):
        return "VACUUM FULL"
    if isinstance(node, ast.ReindexStmt) and not option_enabled(node.params, "concurrently"):
        return "REINDEX"
    if isinstance(node, ast.RefreshMatViewStmt) and not node.concurrent:
        return "REFRESH MATERIALIZED VIEW"
    return None


def _alter_table_work(node: ast.AlterTableStmt) -> str | None:
    for constraint in added_constraints(node, *_SCANNING_CONSTRAINTS):
        if constraint.contype in (ConstrType.CONSTR_CHECK, ConstrType.CONSTR_FOREIGN):
            if is_validating(constraint):
                return "Validating this constraint"
        elif not constraint.indexname:
            return "Building this constraint's index"
    for subtype, what in _REWRITING.items():
        if any(True for _ in commands_of(node, subtype)):
            return f"{what}, which copies the table,"
    if _SET_ACCESS_METHOD is not None and any(True for _ in commands_of(node, _SET_ACCESS_METHOD)):
        return "SET ACCESS METHOD, which rewrites the table,"
    return None


def _fix(context: Context, action: str) -> str:
    if context.runner == "alembic":
        return f"{action}: op.execute(\"SET LOCAL statement_timeout = '30s'\") at the top of upgrade()."
    return f"{action}: SET statement_timeout = '30s'; before this statement (or avoid the blocking scan)."
