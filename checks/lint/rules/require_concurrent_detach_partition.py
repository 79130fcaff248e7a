"""ADL302 require-concurrent-detach-partition."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import AlterTableType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.earlier import is_new

CONCURRENT_DETACH_SINCE = 14


class RequireConcurrentDetachPartition(Rule):
    """`DETACH PARTITION` without `CONCURRENTLY` locks the whole partitioned table.

    ## What it does
    Flags `ALTER TABLE parent DETACH PARTITION child` without `CONCURRENTLY` when the
    target is PostgreSQL 14 or later and the parent existed before this migration.
    Before 14 there is no concurrent form, so the rule stays quiet there: the only
    mitigation is a short `lock_timeout` with retries, which `require-lock-timeout`
    already asks for. `DETACH PARTITION ... FINALIZE` (completing an interrupted
    concurrent detach) and parents created earlier in the same migration are not
    reported.

    ## Why is this bad?
    A plain detach takes an ACCESS EXCLUSIVE lock on the parent table. It has to wait
    for every running query on any partition to finish, and while it waits every new
    query on the parent (reads included) queues behind it. `DETACH PARTITION ...
    CONCURRENTLY` (PostgreSQL 14+) takes only SHARE UPDATE EXCLUSIVE on the parent and
    waits for older snapshots in two transactions instead.

    ## Example
    ```sql
    ALTER TABLE agent.events DETACH PARTITION agent.events_2024_01;
    ```

    ## Use instead
    ```sql
    -- outside a transaction block; the parent must not have a default partition
    ALTER TABLE agent.events DETACH PARTITION agent.events_2024_01 CONCURRENTLY;
    ```
    If it is interrupted, finish it with `ALTER TABLE agent.events DETACH PARTITION
    agent.events_2024_01 FINALIZE`.

    ## In an Alembic migration
    `DETACH ... CONCURRENTLY` cannot run inside a transaction block:
    ```python
    with op.get_context().autocommit_block():
        op.execute(
            "ALTER TABLE agent.events DETACH PARTITION agent.events_2024_01 CONCURRENTLY"
        )
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DETACH-PARTITION
    - https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE
    """

    code = "ADL302"
    name = "require-concurrent-detach-partition"
    severity = "error"
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if context.pg_version < CONCURRENT_DETACH_SINCE or not isinstance(node, ast.AlterTableStmt):
            return
        if node.relation is None or is_new(node.relation, context):
            return
        parent = relation_name(node.relation, context)
        for partition in _plain_detaches(node):
            yield Violation(
                message=f"Detaching {relation_name(partition, context)} locks {parent} "
                "ACCESS EXCLUSIVE, queueing every query on it behind running ones.",
                fix="Use DETACH PARTITION ... CONCURRENTLY outside a transaction block "
                "(op.get_context().autocommit_block() in Alembic).",
            )


def _plain_detaches(node: ast.AlterTableStmt) -> Iterator[ast.RangeVar]:
    for cmd in node.cmds or ():
        if (
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == AlterTableType.AT_DetachPartition
            and isinstance(cmd.def_, ast.PartitionCmd)
            and not cmd.def_.concurrent
            and cmd.def_.name is not None
        ):
            yield cmd.def_.name
