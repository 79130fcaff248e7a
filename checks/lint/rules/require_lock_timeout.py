"""ADL104: a write-blocking lock on an existing relation with no lock_timeout in force."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.locks import LOCKING_STATEMENTS, waits_for_writers_lock


class RequireLockTimeout(Rule):
    """
    ## What it does
    Flags a statement that takes a SHARE or stronger lock on a relation that existed
    before this migration while no non-zero `lock_timeout` is in force. The setting can
    come from `SET lock_timeout`, `SET SESSION`, `SET LOCAL` (until its transaction
    ends) or `SELECT set_config('lock_timeout', '2s', false|true)`; `0` means no
    timeout. Statements taking SHARE UPDATE EXCLUSIVE or weaker (`CONCURRENTLY` builds,
    `VALIDATE CONSTRAINT`, `COMMENT`, `ANALYZE`), locks on relations created in this
    migration, locks the same transaction already holds, `LOCK ... NOWAIT` (it never
    waits) and `REFRESH MATERIALIZED VIEW CONCURRENTLY` (readers pass) are not flagged. With
    `[tool.agentddl] lock_timeout = { max_ms = N }` a larger timeout is flagged too.

    A **warning** by default, an **error** when the policy asks for it
    (`lock_timeout = { required = true }`, or `require-lock-timeout = "error"` under
    `[tool.agentddl.rules]`): unlike a rewrite or a validating scan, which block for as
    long as the table is big every time, a lock wait blocks only while another
    transaction holds a conflicting lock, so a migration that is otherwise safe does
    not fail CI for the missing setting alone. A timeout above `max_ms` is an error.

    ## Why is this bad?
    A lock request waits behind any long-running transaction that holds a conflicting
    lock, and while it waits, every later query on the table queues behind *it*: a
    one-millisecond `ALTER TABLE` becomes an outage as long as the slowest open
    transaction. A short `lock_timeout` makes the migration fail fast (and be retried)
    instead of stalling the application.

    ## Example
    ```sql
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    ```

    ## Use instead
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    ```

    ## In an Alembic migration
    ```python
    def upgrade() -> None:
        op.execute("SET LOCAL lock_timeout = '2s'")
        op.add_column("runs", sa.Column("trace_id", sa.Text()), schema="agent")
    ```
    `SET LOCAL` lasts until Alembic commits the revision's transaction; inside an
    `autocommit_block()` use `SET` instead.

    ## References
    - https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    """

    code = "ADL104"
    name = "require-lock-timeout"
    severity = "warning"  # an error when lock_timeout = { required = true } (see the docstring)
    node_types = LOCKING_STATEMENTS

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if _never_queues(statement.node):
            return
        waits = waits_for_writers_lock(statement, context)
        if not waits:
            return
        relation, mode = max(waits, key=lambda lock: lock[1])
        policy = context.options.get("lock_timeout", {})
        max_ms = policy.get("max_ms")
        if context.lock_timeout_ms == 0 and policy.get("required", True):
            yield Violation(
                severity="error" if policy.get("required") is True else None,
                message=f"Waiting for the {mode} lock on {relation} with no lock_timeout queues"
                f" every later query on {relation} behind this statement.",
                fix=_fix(context, "Set a short lock_timeout first"),
            )
        elif max_ms is not None and context.lock_timeout_ms > max_ms:
            yield Violation(
                message=f"lock_timeout is {context.lock_timeout_ms} ms, above the policy's"
                f" {max_ms} ms: queries on {relation} may queue that long behind this {mode} lock.",
                fix=_fix(context, f"Lower lock_timeout to at most {max_ms} ms"),
                severity="error",
            )


def _never_queues(node: object) -> bool:
    """LOCK ... NOWAIT fails at once instead of waiting; REFRESH ... CONCURRENTLY takes
    EXCLUSIVE, which lets every SELECT through (a materialized view has no writers)."""
    if isinstance(node, ast.LockStmt):
        return bool(node.nowait)
    return isinstance(node, ast.RefreshMatViewStmt) and bool(node.concurrent)


def _fix(context: Context, action: str) -> str:
    if context.runner == "alembic":
        return f"{action}: op.execute(\"SET LOCAL lock_timeout = '2s'\") at the top of upgrade()."
    return f"{action}: SET lock_timeout = '2s'; before this statement, and retry on timeout."
