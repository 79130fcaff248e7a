"""ADL308 access-exclusive-with-slow-work."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes, relation_name
from agentddl.checks.pg.batching import is_unbounded_read, is_unbounded_write
from agentddl.checks.pg.earlier import constraint_named_in_transaction, is_new
from agentddl.checks.pg.locks import exclusive_holders


class AccessExclusiveWithSlowWork(Rule):
    """Slow work in a transaction that already holds an ACCESS EXCLUSIVE lock.

    ## What it does
    Reports a slow statement that runs in the same transaction as an earlier statement
    which took an ACCESS EXCLUSIVE lock on a relation that existed before this
    migration (most `ALTER TABLE` forms, `DROP`, `TRUNCATE`, `LOCK TABLE`). The
    finding is placed at the slow statement and names the earlier lock. Slow work,
    on relations that existed before this migration:

    - an `UPDATE` or `DELETE` whose rows are not bounded (the `unbatched-backfill`
      heuristic: a targeted `WHERE id = 42` is fast and not reported);
    - `INSERT ... SELECT` and `CREATE TABLE ... AS` reading an existing relation
      without a `LIMIT` or a bounding `WHERE` (same heuristic);
    - `CREATE INDEX` without `CONCURRENTLY`;
    - `ALTER TABLE ... VALIDATE CONSTRAINT` (unless the constraint was added in the same
      transaction: `validate-in-same-transaction` reports that);
    - `REFRESH MATERIALIZED VIEW`.

    Statements that autocommit on their own (psql outside `BEGIN`, Alembic's
    `autocommit_block()`) hold nothing from earlier statements and are not reported.

    ## Why is this bad?
    A lock is held until its transaction ends. The `ALTER TABLE` itself may take
    milliseconds, but if the same transaction then backfills or scans a large table,
    the ACCESS EXCLUSIVE lock stays for all of it: every read and write of the locked
    table waits for minutes, and queued requests pile up behind it.

    ## Example
    ```sql
    BEGIN;
    ALTER TABLE agent.runs ADD COLUMN priority int;
    UPDATE agent.runs SET priority = 0;  -- agent.runs stays locked for the whole update
    COMMIT;
    ```

    ## Use instead
    Commit the DDL first, then do the slow work in its own (batched) transactions:
    ```sql
    ALTER TABLE agent.runs ADD COLUMN priority int;  -- its own transaction
    UPDATE agent.runs SET priority = 0
    WHERE id IN (SELECT id FROM agent.runs WHERE priority IS NULL LIMIT 5000);  -- repeat
    ```

    ## In an Alembic migration
    Alembic runs a revision in one transaction, so `op.add_column(...)` followed by
    `op.execute("UPDATE ...")` holds the lock for the whole update. Put the backfill in
    `with op.get_context().autocommit_block():` (or a separate revision or job), after
    the DDL has committed.

    ## References
    - https://www.postgresql.org/docs/current/explicit-locking.html
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    """

    code = "ADL308"
    name = "access-exclusive-with-slow-work"
    severity = "error"
    node_types = (
        ast.UpdateStmt,
        ast.DeleteStmt,
        ast.InsertStmt,
        ast.CreateTableAsStmt,
        ast.IndexStmt,
        ast.RefreshMatViewStmt,
        ast.AlterTableStmt,
    )

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        work = _slow_work(statement, context)
        if work is None:
            return
        held = exclusive_holders(statement, context)
        if not held:
            return
        (relation, _), locker = held[0]
        more = f" (and {len(held) - 1} more)" if len(held) > 1 else ""
        yield Violation(
            f"{relation}{more} stays ACCESS EXCLUSIVE locked by the earlier "
            f"`{_snippet(locker.sql)}` while this {work} runs: every read and write of it "
            "waits until the transaction ends.",
            f"End the transaction after the locking statement, then run the {work} in its "
            "own (batched) transactions.",
        )


def _snippet(sql: str, width: int = 48) -> str:
    """The statement's start on one line. (A line number would be wrong for Alembic
    revisions, whose findings are mapped back to Python lines after the rules ran.)"""
    text = " ".join(sql.split()).rstrip(";")
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _slow_work(statement: Statement, context: Context) -> str | None:
    """What slow thing the statement does to an existing relation, or None."""
    node = statement.node
    if isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
        target = node.relation
        if target is None or is_new(target, context):
            return None
        verb = "UPDATE" if isinstance(node, ast.UpdateStmt) else "DELETE"
        unbounded = is_unbounded_write(node, statement.in_do_block)
        return f"{verb} of {relation_name(target, context)}" if unbounded else None
    if isinstance(node, ast.InsertStmt) and _scans_existing(statement, node.selectStmt, context):
        return "INSERT ... SELECT"
    if isinstance(node, ast.CreateTableAsStmt) and _scans_existing(statement, node.query, context):
        return "CREATE TABLE ... AS"
    if isinstance(node, ast.IndexStmt) and not node.concurrent:
        return None if is_new(node.relation, context) else "index build"
    if isinstance(node, ast.RefreshMatViewStmt):
        return None if is_new(node.relation, context) else "materialized view refresh"
    if isinstance(node, ast.AlterTableStmt) and _validates_old_constraint(statement, context):
        return "constraint validation"
    return None


def _scans_existing(statement: Statement, select: Any, context: Context) -> bool:
    """True when the statement's query reads, without a bound, a relation that existed
    before this migration (names of its CTEs, wherever declared, are not relations)."""
    if not is_unbounded_read(select, statement.in_do_block):
        return False
    ctes = {c.ctename for c in iter_nodes(statement.node) if isinstance(c, ast.CommonTableExpr)}
    return any(
        isinstance(n, ast.RangeVar) and n.relname not in ctes and not is_new(n, context)
        for n in iter_nodes(select)
    )


def _validates_old_constraint(statement: Statement, context: Context) -> bool:
    node = statement.node
    if node.relation is None or is_new(node.relation, context):
        return False
    return any(
        isinstance(cmd, ast.AlterTableCmd)
        and cmd.subtype == AlterTableType.AT_ValidateConstraint
        and not constraint_named_in_transaction(str(cmd.name), statement, context)
        for cmd in node.cmds or ()
    )
