"""ADL301 require-concurrent-reindex."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ReindexObjectType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import option_enabled, relation_name
from agentddl.checks.pg.earlier import is_new, schema_created_earlier

CONCURRENT_REINDEX_SINCE = 12

_FIX = (
    "Use REINDEX {kind} CONCURRENTLY outside a transaction block "
    "(op.get_context().autocommit_block() in Alembic)."
)


class RequireConcurrentReindex(Rule):
    """Rebuilding indexes with a plain `REINDEX` blocks the table while it runs.

    ## What it does
    Flags a `REINDEX` of an index, table, schema or database without `CONCURRENTLY` on
    objects that existed before this migration, when the target is PostgreSQL 12 or
    later. Objects
    created earlier in the same migration (a table, an index, a schema) are new and
    small and are not reported. The rule asks only for what the target version has:
    before 12 there is no `REINDEX ... CONCURRENTLY`, and `REINDEX SYSTEM` has no
    concurrent form on any version, so those stay quiet here (`require-lock-timeout`
    still applies). On such targets, rebuild-and-swap by hand (below) instead.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    A plain `REINDEX INDEX` takes an ACCESS EXCLUSIVE lock on the index, so every
    query whose plan would consider that index waits, and a SHARE lock on the table,
    so every write waits; `REINDEX TABLE` does the same for all of the table's
    indexes. The lock is held for the whole rebuild, which on a large table takes
    minutes. `REINDEX ... CONCURRENTLY` (PostgreSQL 12+) builds the new index next to
    the old one under a SHARE UPDATE EXCLUSIVE lock and swaps them at the end.

    ## Example
    ```sql
    REINDEX INDEX agent.runs_status_idx;
    ```

    ## Use instead
    ```sql
    REINDEX INDEX CONCURRENTLY agent.runs_status_idx;  -- outside a transaction block
    ```
    Before PostgreSQL 12 (not reported there), rebuild and swap:
    ```sql
    CREATE INDEX CONCURRENTLY runs_status_idx_new ON agent.runs (status);
    DROP INDEX CONCURRENTLY agent.runs_status_idx;
    ALTER INDEX agent.runs_status_idx_new RENAME TO runs_status_idx;
    ```

    ## In an Alembic migration
    `REINDEX ... CONCURRENTLY` cannot run inside a transaction block, so run it in an
    autocommit block:
    ```python
    with op.get_context().autocommit_block():
        op.execute("REINDEX INDEX CONCURRENTLY agent.runs_status_idx")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-reindex.html
    - https://www.postgresql.org/docs/current/sql-reindex.html#SQL-REINDEX-CONCURRENTLY
    """

    code = "ADL301"
    name = "require-concurrent-reindex"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.ReindexStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if context.pg_version < CONCURRENT_REINDEX_SINCE:
            return
        if not isinstance(node, ast.ReindexStmt) or node.kind not in _KIND_WORDS:
            return
        if option_enabled(node.params, "concurrently"):
            return
        target = _target(node, context)
        if target is None:
            return
        kind = _KIND_WORDS.get(node.kind, "TABLE")
        yield Violation(
            message=_MESSAGES.get(kind, _MESSAGES["SCHEMA"]).format(kind=kind, target=target),
            fix=_FIX.format(kind=kind),
        )


_KIND_WORDS: dict[ReindexObjectType | None, str] = {
    ReindexObjectType.REINDEX_OBJECT_INDEX: "INDEX",
    ReindexObjectType.REINDEX_OBJECT_TABLE: "TABLE",
    ReindexObjectType.REINDEX_OBJECT_SCHEMA: "SCHEMA",
    ReindexObjectType.REINDEX_OBJECT_DATABASE: "DATABASE",
}


_MESSAGES = {
    "INDEX": "REINDEX INDEX {target} blocks writes to its table, and reads that would use "
    "the index, until the rebuild finishes.",
    "TABLE": "REINDEX TABLE {target} blocks writes to it, and reads that would use its "
    "indexes, until all of them are rebuilt.",
    "SCHEMA": "REINDEX {kind} {target} blocks writes to each of its tables, and reads that "
    "would use their indexes, while that table's indexes are rebuilt.",
}


def _target(node: ast.ReindexStmt, context: Context) -> str | None:
    """The object's display name, or None when it was created in this migration."""
    if node.relation is not None:
        if is_new(node.relation, context):
            return None
        return str(relation_name(node.relation, context))
    if node.kind == ReindexObjectType.REINDEX_OBJECT_SCHEMA and node.name:
        return None if schema_created_earlier(node.name, context) else node.name
    return node.name or "the current database"
