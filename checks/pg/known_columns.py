"""What is known of an existing table's column just before a statement runs.

In order of authority: what earlier statements of this migration did to it (ADD
COLUMN, SET/DROP NOT NULL, a primary key over it, a type change), then what the
statement itself says through Alembic's hints (`existing_type=`, `existing_nullable=`,
`existing_server_default=`, see type_hints), then the schema the linter was given
(`--schema-from`, `Context.schema`). Each field is None when no source knows it, and
a rule then judges as it does without a schema.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pglast import ast
from pglast.enums import AlterTableType, ConstrType

from agentddl.checks.pg.columns import added_constraint, column_type
from agentddl.checks.pg.earlier import earlier_commands
from agentddl.checks.pg.names import ColumnType, RelationName
from agentddl.checks.pg.statements import Context, Statement
from agentddl.checks.pg.type_hints import existing_defaults, existing_nullable, existing_types


@dataclass(frozen=True)
class KnownColumn:
    """A column before a statement; None: not known."""

    type: ColumnType | None = None
    not_null: bool | None = None
    default: str | None = None


def known_column(statement: Statement, context: Context, table: RelationName, column: str) -> KnownColumn:
    """The column as the migration so far, the statement's hints and the schema show it."""
    known = _from_schema(context, table, column)
    known = _from_hints(known, statement.sql, column)
    for _, command in earlier_commands(table, context):
        known = _after(known, command, column)
    return known


def _from_schema(context: Context, table: RelationName, column: str) -> KnownColumn:
    facts = context.schema.column(table, column) if context.schema is not None else None
    if facts is None:
        return KnownColumn()
    return KnownColumn(facts.type, facts.not_null, facts.default)


def _from_hints(known: KnownColumn, sql: str, column: str) -> KnownColumn:
    if "agentddl:" not in sql:
        return known
    hinted_type = existing_types(sql).get(column)
    nullable = existing_nullable(sql).get(column)
    default = existing_defaults(sql).get(column)
    return KnownColumn(
        hinted_type or known.type,
        (not nullable) if nullable is not None else known.not_null,
        default if default is not None else known.default,
    )


def _after(known: KnownColumn, command: ast.AlterTableCmd, column: str) -> KnownColumn:
    """`known` after one earlier ALTER TABLE command of the same table."""
    kind = command.subtype
    definition = command.def_ if isinstance(command.def_, ast.ColumnDef) else None
    type_name = definition.typeName if definition is not None else None
    added = kind == AlterTableType.AT_AddColumn and definition is not None and definition.colname == column
    if added and definition is not None and type_name is not None:
        return KnownColumn(column_type(type_name), _declared_not_null(definition), None)
    if command.name == column and kind == AlterTableType.AT_SetNotNull:
        return replace(known, not_null=True)
    if command.name == column and kind == AlterTableType.AT_DropNotNull:
        return replace(known, not_null=False)
    if command.name == column and kind == AlterTableType.AT_AlterColumnType and type_name is not None:
        return replace(known, type=column_type(type_name))
    constraint = added_constraint(command)
    keys = [key.sval for key in constraint.keys or ()] if constraint is not None else []
    if constraint is not None and constraint.contype == ConstrType.CONSTR_PRIMARY and column in keys:
        return replace(known, not_null=True)
    return known


def _declared_not_null(definition: ast.ColumnDef) -> bool:
    kinds = {c.contype for c in definition.constraints or () if isinstance(c, ast.Constraint)}
    return bool(kinds & {ConstrType.CONSTR_NOTNULL, ConstrType.CONSTR_PRIMARY, ConstrType.CONSTR_IDENTITY})
