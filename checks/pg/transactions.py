"""Facts about a statement that hold on every server: what PostgreSQL refuses to run
inside a transaction block. Lint reports it, trace runs such statements in autocommit."""

from __future__ import annotations

from pglast import ast, enums

from agentddl.checks.pg.ast_helpers import option_enabled


def no_transaction_block(node: object, pg_version: int) -> str | None:
    """What the statement is, if PostgreSQL refuses to run it in a transaction block."""
    if isinstance(node, ast.IndexStmt) and node.concurrent:
        return "CREATE INDEX CONCURRENTLY"
    if isinstance(node, ast.DropStmt) and node.concurrent:
        return "DROP INDEX CONCURRENTLY"
    # Before the version that has the syntax, syntax-not-in-target-version reports it.
    if isinstance(node, ast.ReindexStmt) and option_enabled(node.params, "concurrently") and pg_version >= 12:
        return "REINDEX CONCURRENTLY"
    if isinstance(node, ast.AlterTableStmt) and _detach_concurrently(node) and pg_version >= 14:
        return "DETACH PARTITION CONCURRENTLY"
    if isinstance(node, ast.VacuumStmt) and node.is_vacuumcmd:
        return "VACUUM"
    if isinstance(node, ast.ReindexStmt) and node.kind in _REINDEX_MANY:
        return "REINDEX SCHEMA/DATABASE/SYSTEM"
    if isinstance(node, ast.ClusterStmt) and node.relation is None:
        return "CLUSTER without a table"
    return _NEVER_IN_BLOCK.get(type(node))


_REINDEX_MANY = (
    enums.ReindexObjectType.REINDEX_OBJECT_SCHEMA,
    enums.ReindexObjectType.REINDEX_OBJECT_DATABASE,
    enums.ReindexObjectType.REINDEX_OBJECT_SYSTEM,
)
_NEVER_IN_BLOCK: dict[type, str] = {
    ast.CreatedbStmt: "CREATE DATABASE",
    ast.DropdbStmt: "DROP DATABASE",
    ast.AlterSystemStmt: "ALTER SYSTEM",
    ast.CreateTableSpaceStmt: "CREATE TABLESPACE",
    ast.DropTableSpaceStmt: "DROP TABLESPACE",
}


def _detach_concurrently(node: ast.AlterTableStmt) -> bool:
    return any(
        cmd.subtype == enums.AlterTableType.AT_DetachPartition and getattr(cmd.def_, "concurrent", False)
        for cmd in node.cmds or ()
    )
