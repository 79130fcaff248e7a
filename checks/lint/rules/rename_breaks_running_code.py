"""ADL305 rename-breaks-running-code."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ObjectType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import name_list, relation_name
from agentddl.checks.pg.earlier import (
    column_added_earlier,
    enum_value_added_earlier,
    is_new,
    schema_created_earlier,
    type_created_earlier,
)

# Relations application code names in queries; renaming an index, constraint,
# sequence or trigger does not change any query text.
_RELATION_KINDS: dict[ObjectType | None, str] = {
    ObjectType.OBJECT_TABLE: "table",
    ObjectType.OBJECT_VIEW: "view",
    ObjectType.OBJECT_MATVIEW: "materialized view",
    ObjectType.OBJECT_FOREIGN_TABLE: "foreign table",
}
_COLUMN_FIX = (
    "Expand and contract: add the new column, write both and backfill, move readers, "
    "then drop the old column in a later release."
)
_RELATION_FIX = (
    "Keep the old name working: rename and CREATE VIEW {old} AS SELECT * FROM {new} in the "
    "same transaction, then drop the view once no code uses the old name."
)
_SCHEMA_FIX = "Create the new schema and move objects while code uses both, or deploy code first."
_MOVE_FIX = (
    "Deploy code that uses the new schema first (or leave a view under the old name), then move the object."
)
_TYPE_KINDS: dict[ObjectType | None, str] = {
    ObjectType.OBJECT_TYPE: "type",
    ObjectType.OBJECT_DOMAIN: "domain",
}
_TYPE_FIX = (
    "Create the type under the new name, move columns and code to it, then drop the old "
    "one in a later release."
)
_ENUM_FIX = (
    "Add the new value, migrate rows and code to it, and stop using the old one; "
    "renaming in place breaks code that still sends the old value."
)


class RenameBreaksRunningCode(Rule):
    """Renaming a column, table, view, schema or enum value breaks the running release.

    ## What it does
    Flags renames of columns, tables, views, materialized views, foreign tables,
    schemas, types, domains and enum values that existed before this migration
    (`ALTER TABLE` or `ALTER VIEW` with `RENAME` or `RENAME COLUMN`, `ALTER SCHEMA`,
    `ALTER TYPE` or `ALTER DOMAIN` with `RENAME TO`, `ALTER TYPE` with `RENAME VALUE`),
    and moves of tables, views and types to another schema (`SET SCHEMA`).
    Types count because drivers cast to them by name: SQLAlchemy's asyncpg dialect
    sends every enum parameter as `$1::run_status`. Not flagged: objects created earlier
    in the same migration (a table, a schema, a type, a column added by `ADD COLUMN`, an
    enum value added by `ADD VALUE`), and renames application queries never mention:
    indexes, constraints, sequences, triggers and functions.

    ## Why is this bad?
    A migration runs while the previous release of the application is still serving
    traffic (and keeps serving it during a rolling deploy or a rollback). That code
    still writes the old name: every query naming the old column, table or schema fails
    with "does not exist" from the moment the rename commits, and every insert of the
    old enum label fails with "invalid input value for enum".

    ## Example
    ```sql
    ALTER TABLE agent.runs RENAME COLUMN wake_at TO next_wake_at;
    ALTER TABLE agent.events RENAME TO run_events;
    ALTER TYPE agent.run_status RENAME VALUE 'done' TO 'succeeded';
    ALTER TYPE agent.run_status RENAME TO run_state;
    ```

    ## Use instead
    Expand and contract over several releases: add the new column, write both, backfill,
    switch reads, then drop the old one. For a table, keep the old name alive with a
    view in the same transaction (simple views are updatable):
    ```sql
    BEGIN;
    ALTER TABLE agent.events RENAME TO run_events;
    CREATE VIEW agent.events AS SELECT * FROM agent.run_events;
    COMMIT;
    ```
    This rule only sees what comes before a statement, so that pattern is still
    reported: suppress it with `-- agentddl: ignore[rename-breaks-running-code] compat
    view follows`.

    ## In an Alembic migration
    `op.alter_column("runs", "wake_at", new_column_name="next_wake_at")` and
    `op.rename_table(...)` emit these statements. Split the change into an expand
    revision (`op.add_column`) and, a release later, a contract revision
    (`op.drop_column`).

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html
    - https://www.postgresql.org/docs/current/sql-altertype.html
    - https://github.com/ankane/strong_migrations#renaming-a-column
    """

    code = "ADL305"
    name = "rename-breaks-running-code"
    severity = "error"
    node_types = (ast.RenameStmt, ast.AlterEnumStmt, ast.AlterObjectSchemaStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if isinstance(node, ast.RenameStmt):
            yield from _rename(node, context)
        elif isinstance(node, ast.AlterEnumStmt) and node.oldVal is not None:
            yield from _rename_value(node, context)
        elif isinstance(node, ast.AlterObjectSchemaStmt):
            yield from _move(node, context)


def _rename(node: ast.RenameStmt, context: Context) -> Iterator[Violation]:
    if node.renameType == ObjectType.OBJECT_SCHEMA and node.subname:
        if not schema_created_earlier(node.subname, context):
            yield Violation(
                f"Renaming schema {node.subname} to {node.newname} breaks running code "
                "that still uses the old name.",
                _SCHEMA_FIX,
            )
    elif node.renameType == ObjectType.OBJECT_COLUMN:
        yield from _rename_column(node, context)
    elif node.renameType in _TYPE_KINDS and isinstance(node.object, tuple):
        yield from _rename_type(node, context)
    elif node.renameType in _RELATION_KINDS and node.relation is not None:
        if is_new(node.relation, context):
            return
        old = relation_name(node.relation, context)
        yield Violation(
            f"Renaming {_RELATION_KINDS[node.renameType]} {old} to {node.newname} breaks "
            "running code that still queries the old name.",
            _RELATION_FIX.format(old=old, new=f"{old.schema}.{node.newname}"),
        )


def _rename_column(node: ast.RenameStmt, context: Context) -> Iterator[Violation]:
    if node.relationType not in _RELATION_KINDS or node.relation is None or not node.subname:
        return
    if is_new(node.relation, context):
        return
    relation = relation_name(node.relation, context)
    if column_added_earlier(relation, node.subname, context):
        return
    yield Violation(
        f"Renaming column {relation}.{node.subname} to {node.newname} breaks running code "
        "that still uses the old name.",
        _COLUMN_FIX,
    )


def _rename_type(node: ast.RenameStmt, context: Context) -> Iterator[Violation]:
    names = node.object if isinstance(node.object, tuple) else ()
    if type_created_earlier(names, context):
        return
    old = ".".join(name_list(names))
    yield Violation(
        f"Renaming {_TYPE_KINDS.get(node.renameType, 'type')} {old} to {node.newname} breaks running code "
        "that still casts to the old name.",
        _TYPE_FIX,
    )


def _move(node: ast.AlterObjectSchemaStmt, context: Context) -> Iterator[Violation]:
    """`ALTER TABLE|VIEW|TYPE ... SET SCHEMA`: a rename of the qualified name."""
    if node.objectType in _RELATION_KINDS and node.relation is not None:
        if is_new(node.relation, context):
            return
        old = str(relation_name(node.relation, context))
    elif node.objectType in _TYPE_KINDS and isinstance(node.object, tuple):
        if type_created_earlier(node.object, context):
            return
        old = ".".join(name_list(node.object))
    else:
        return
    yield Violation(
        f"Moving {old} to schema {node.newschema} breaks running code that still uses "
        "the old qualified name.",
        _MOVE_FIX,
    )


def _rename_value(node: ast.AlterEnumStmt, context: Context) -> Iterator[Violation]:
    if type_created_earlier(node.typeName, context):
        return
    if enum_value_added_earlier(node.typeName, str(node.oldVal), context):
        return
    type_name = ".".join(name_list(node.typeName))
    yield Violation(
        f"Renaming enum value {node.oldVal!r} of {type_name} breaks running code that "
        "still reads or writes the old label.",
        _ENUM_FIX,
    )
