"""ADL306 drop-breaks-running-code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ObjectType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import name_list, qualified_name, relation_name
from agentddl.checks.pg.earlier import (
    column_added_earlier,
    detached_earlier,
    is_new,
    schema_created_earlier,
)

_TABLE_KINDS: dict[ObjectType | None, str] = {
    ObjectType.OBJECT_TABLE: "table",
    ObjectType.OBJECT_FOREIGN_TABLE: "foreign table",
}
_FIX = (
    "Deploy code that no longer uses {what} first, then drop it in a later migration "
    "(suppress this finding with that reason once it is true)."
)


class DropBreaksRunningCode(Rule):
    """Dropping a column, table or schema breaks the release that still uses it.

    ## What it does
    Flags `DROP COLUMN`, `DROP TABLE`, `DROP FOREIGN TABLE`, `DROP SCHEMA` and
    `DROP DATABASE` of objects that existed before this migration. Not flagged: objects
    created earlier in the same migration (including columns added by `ADD COLUMN` and
    everything in a schema created here), and a partition dropped after this migration
    detached it (the retention pattern). Deliberately not flagged at all:

    - `DROP CONSTRAINT`: queries keep working (only an `ON CONFLICT` naming it, or
      needing its unique index, would fail), and dropping one is a step of the safe
      patterns (the CHECK that proves `SET NOT NULL`, swapping a constraint for one
      added `NOT VALID` or `USING INDEX`);
    - `ALTER COLUMN ... DROP NOT NULL`: old code keeps working, and making a column
      nullable is the expand step before removing it;
    - `DROP VIEW` / `DROP MATERIALIZED VIEW`: almost always followed by re-creating the
      view, which this rule cannot see (it only knows earlier statements);
    - `DROP INDEX`: no query names an index (the CONCURRENTLY rules cover its lock).

    ## Why is this bad?
    A migration runs while the previous release is still serving traffic, and a
    rollback brings it back. Every query of that release naming the dropped column,
    table or schema fails from the moment the drop commits (ORMs that list every
    column in `SELECT` and `INSERT` fail on any query of the table), and the data is
    gone: a rollback cannot bring it back.

    ## Example
    ```sql
    ALTER TABLE agent.runs DROP COLUMN legacy_state;
    DROP TABLE agent.old_events;
    ```

    ## Use instead
    Contract in two releases: first ship code that no longer reads or writes the
    column (in SQLAlchemy, remove it from the model or mark it deferred), then drop it
    in a later migration. Once that is the case, say so at the drop (an ignore comment
    on its own line applies to the next statement):
    ```sql
    -- agentddl: ignore[drop-breaks-running-code] unused since release 2.3
    ALTER TABLE agent.runs DROP COLUMN legacy_state;
    ```

    ## In an Alembic migration
    Put `op.drop_column(...)` / `op.drop_table(...)` in a contract revision deployed
    after the release that stopped using the object, and say so above the call:
    ```python
    # agentddl: ignore[drop-breaks-running-code] unused since release 2.3
    op.drop_column("runs", "legacy_state", schema="agent")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-DROP-COLUMN
    - https://www.postgresql.org/docs/current/sql-droptable.html
    - https://github.com/ankane/strong_migrations#removing-a-column
    """

    code = "ADL306"
    name = "drop-breaks-running-code"
    severity = "error"
    node_types = (ast.AlterTableStmt, ast.DropStmt, ast.DropdbStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if isinstance(node, ast.AlterTableStmt) and node.objtype in _TABLE_KINDS:
            yield from _drop_columns(node, context)
        elif isinstance(node, ast.DropStmt) and node.removeType in _TABLE_KINDS:
            yield from _drop_tables(node, context)
        elif isinstance(node, ast.DropStmt) and node.removeType == ObjectType.OBJECT_SCHEMA:
            yield from _drop_schemas(node, context)
        elif isinstance(node, ast.DropdbStmt):
            yield from _drop_database(node, context)


def _drop_columns(node: ast.AlterTableStmt, context: Context) -> Iterator[Violation]:
    if node.relation is None or is_new(node.relation, context):
        return
    relation = relation_name(node.relation, context)
    for cmd in node.cmds or ():
        if not _drops_column(cmd) or column_added_earlier(relation, cmd.name, context):
            continue
        what = f"column {relation}.{cmd.name}"
        yield Violation(
            f"Dropping {what} breaks running code that still reads or writes it, "
            "and its data is gone for good.",
            _FIX.format(what=f"column {cmd.name}"),
        )


def _drops_column(cmd: Any) -> bool:
    return (
        isinstance(cmd, ast.AlterTableCmd) and cmd.subtype == AlterTableType.AT_DropColumn and bool(cmd.name)
    )


def _drop_tables(node: ast.DropStmt, context: Context) -> Iterator[Violation]:
    kind = _TABLE_KINDS.get(node.removeType, "table")
    for names in node.objects or ():
        relation = qualified_name(names, context)
        explicit_schema = len(name_list(names)) > 1
        if context.is_new(relation) or detached_earlier(relation, context):
            continue
        if explicit_schema and schema_created_earlier(relation.schema, context):
            continue
        yield Violation(
            f"Dropping {kind} {relation} breaks running code that still queries it, "
            "and its data is gone for good.",
            _FIX.format(what=relation),
        )


def _drop_schemas(node: ast.DropStmt, context: Context) -> Iterator[Violation]:
    for item in node.objects or ():
        schema = item.sval if isinstance(item, ast.String) else None
        if schema is None or schema_created_earlier(schema, context):
            continue
        yield Violation(
            f"Dropping schema {schema} breaks running code that still uses its objects, "
            "and their data is gone for good.",
            _FIX.format(what=f"schema {schema}"),
        )


def _drop_database(node: ast.DropdbStmt, context: Context) -> Iterator[Violation]:
    created = {s.node.dbname for s in context.earlier_of(ast.CreatedbStmt)}
    if node.dbname in created:
        return
    yield Violation(
        f"Dropping database {node.dbname} breaks every client still using it, and its data is gone for good.",
        _FIX.format(what=f"database {node.dbname}"),
    )
