"""ADL304 table-rewrite-operation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ObjectType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import option_enabled, relation_name
from agentddl.checks.pg.earlier import is_new

# REINDEX (TABLESPACE ...) CONCURRENTLY moves an index online from this version on.
REINDEX_TABLESPACE_SINCE = 14

_REPACK = "Use pg_repack (or pg_squeeze) online, or run it in a maintenance window."
_INDEX_TWIN = (
    "CREATE INDEX CONCURRENTLY a twin ... TABLESPACE new, DROP INDEX CONCURRENTLY the old "
    "one, then rename the twin."
)
_REWRITING_COMMANDS: dict[AlterTableType | None, str] = {
    AlterTableType.AT_SetLogged: "SET LOGGED",
    AlterTableType.AT_SetUnLogged: "SET UNLOGGED",
    AlterTableType.AT_SetTableSpace: "SET TABLESPACE",
    AlterTableType.AT_SetAccessMethod: "SET ACCESS METHOD",
}


class TableRewriteOperation(Rule):
    """Operations that copy a whole table or index while holding ACCESS EXCLUSIVE.

    ## What it does
    Flags operations that copy a whole table or index that existed before this
    migration while holding an ACCESS EXCLUSIVE lock. Those are:

    - `ALTER TABLE` with `SET LOGGED`, `SET UNLOGGED`, `SET TABLESPACE` or
      `SET ACCESS METHOD`;
    - `ALTER INDEX` or `ALTER MATERIALIZED VIEW` with `SET TABLESPACE`, and
      `ALTER TABLE` / `ALTER INDEX` `ALL IN TABLESPACE`;
    - `VACUUM FULL` and `CLUSTER`.

    Relations created earlier in the same migration are new and small and are not
    reported. Plain `VACUUM`, `ANALYZE` and `ALTER TABLE ... CLUSTER ON` (which only
    marks an index) are fine.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    Each of these writes a complete new copy of the table (or index) and swaps it in,
    holding an ACCESS EXCLUSIVE lock from start to end: no reads, no writes, for as
    long as copying every page takes. `SET LOGGED` additionally writes the whole table
    to the WAL, and replicas have to replay it.

    ## Example
    ```sql
    VACUUM FULL agent.events;
    CLUSTER agent.events USING events_run_id_seq_idx;
    ALTER TABLE agent.events SET TABLESPACE fast_ssd;
    ```

    ## Use instead
    Rebuild online with `pg_repack` (`pg_repack --table agent.events`, `--order-by`
    for CLUSTER, `--tablespace` for a move) or `pg_squeeze`. To move an index on
    PostgreSQL 14+:
    ```sql
    REINDEX (TABLESPACE fast_ssd) INDEX CONCURRENTLY agent.events_run_id_seq_idx;
    ```
    Otherwise schedule the operation in a maintenance window rather than a migration.

    ## In an Alembic migration
    Keep these out of revisions that run during a deploy. If one must run, give it a
    short lock timeout so it fails instead of queueing traffic:
    ```python
    op.execute("SET lock_timeout = '2s'")
    op.execute("ALTER TABLE agent.events SET LOGGED")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html
    - https://www.postgresql.org/docs/current/sql-vacuum.html
    - https://www.postgresql.org/docs/current/sql-cluster.html
    - https://reorg.github.io/pg_repack/
    """

    code = "ADL304"
    name = "table-rewrite-operation"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.AlterTableStmt, ast.AlterTableMoveAllStmt, ast.VacuumStmt, ast.ClusterStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        for target, operation, advice in _rewrites(statement.node, context):
            yield Violation(
                message=f"{operation} rewrites {target} under an ACCESS EXCLUSIVE lock, "
                "blocking all reads and writes until the copy is done.",
                fix=advice,
            )


def _rewrites(node: Any, context: Context) -> Iterator[tuple[str, str, str]]:
    """(target, operation, fix) for each rewrite of a pre-existing relation."""
    if isinstance(node, ast.AlterTableStmt):
        yield from _alter_table(node, context)
    elif isinstance(node, ast.AlterTableMoveAllStmt):
        what = f"every relation in tablespace {node.orig_tablespacename}"
        yield what, "ALTER ... ALL IN TABLESPACE ... SET TABLESPACE", _REPACK
    elif isinstance(node, ast.VacuumStmt) and node.is_vacuumcmd and option_enabled(node.options, "full"):
        for target in _vacuum_targets(node, context):
            yield target, "VACUUM FULL", _REPACK
    elif isinstance(node, ast.ClusterStmt):
        if node.relation is None:
            yield "every previously clustered table", "CLUSTER", _REPACK
        elif not is_new(node.relation, context):
            yield str(relation_name(node.relation, context)), "CLUSTER", _REPACK


def _alter_table(node: ast.AlterTableStmt, context: Context) -> Iterator[tuple[str, str, str]]:
    if node.relation is None or is_new(node.relation, context):
        return
    target = str(relation_name(node.relation, context))
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        operation = _REWRITING_COMMANDS.get(cmd.subtype)
        if operation is not None:
            yield target, operation, _alter_fix(node, target, cmd, context)


def _alter_fix(node: ast.AlterTableStmt, target: str, cmd: ast.AlterTableCmd, context: Context) -> str:
    moves_index = node.objtype == ObjectType.OBJECT_INDEX and cmd.subtype == AlterTableType.AT_SetTableSpace
    if moves_index and context.pg_version >= REINDEX_TABLESPACE_SINCE:
        return f"Use REINDEX (TABLESPACE {cmd.name}) INDEX CONCURRENTLY {target} instead."
    if moves_index:
        return _INDEX_TWIN
    return _REPACK


def _vacuum_targets(node: ast.VacuumStmt, context: Context) -> Iterator[str]:
    if not node.rels:
        yield "every table in the database"
        return
    for rel in node.rels:
        relation = rel.relation if isinstance(rel, ast.VacuumRelation) else None
        if relation is not None and not is_new(relation, context):
            yield str(relation_name(relation, context))
