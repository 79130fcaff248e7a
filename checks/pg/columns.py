"""Shared helpers for rules about constraints, columns, types and defaults.

Everything here reads pglast nodes and the frozen `Context`; nothing parses SQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import (
    AlterTableType,
    BoolExprType,
    ConstrType,
    NullTestType,
    ObjectType,
)

from agentddl.checks.pg.ast_helpers import const_value, iter_nodes, name_list, relation_name
from agentddl.checks.pg.names import ALWAYS_REWRITTEN_INTO, ColumnType, RelationName
from agentddl.checks.pg.statements import Context, Statement


def table_commands(node: Any) -> tuple[ast.AlterTableCmd, ...]:
    """The commands of an `ALTER TABLE` (not ALTER INDEX / VIEW / FOREIGN TABLE ...)."""
    if not isinstance(node, ast.AlterTableStmt) or node.objtype != ObjectType.OBJECT_TABLE:
        return ()
    return tuple(cmd for cmd in node.cmds or () if isinstance(cmd, ast.AlterTableCmd))


def commands_of(node: Any, subtype: AlterTableType) -> Iterator[ast.AlterTableCmd]:
    """The `ALTER TABLE` commands of one kind (e.g. every ADD COLUMN)."""
    return (cmd for cmd in table_commands(node) if cmd.subtype == subtype)


def added_constraint(cmd: ast.AlterTableCmd) -> ast.Constraint | None:
    """The constraint an `ADD [CONSTRAINT x] ...` command adds; None for other commands."""
    if cmd.subtype == AlterTableType.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
        return cmd.def_
    return None


def added_constraints(node: Any, *kinds: ConstrType) -> Iterator[ast.Constraint]:
    """`ADD [CONSTRAINT x] ...` table constraints of the given kinds in an ALTER TABLE."""
    for cmd in table_commands(node):
        constraint = added_constraint(cmd)
        if constraint is not None and constraint.contype in kinds:
            yield constraint


def added_columns(node: Any) -> Iterator[ast.ColumnDef]:
    """The column definitions of every `ADD COLUMN` in an ALTER TABLE."""
    for cmd in commands_of(node, AlterTableType.AT_AddColumn):
        if isinstance(cmd.def_, ast.ColumnDef):
            yield cmd.def_


def column_constraints(column: ast.ColumnDef, *kinds: ConstrType) -> list[ast.Constraint]:
    """A column definition's inline constraints of the given kinds."""
    found = column.constraints or ()
    return [c for c in found if isinstance(c, ast.Constraint) and c.contype in kinds]


def default_expression(column: ast.ColumnDef) -> Any | None:
    """The column's DEFAULT expression; None without one or for `DEFAULT NULL`."""
    for constraint in column_constraints(column, ConstrType.CONSTR_DEFAULT):
        expr = constraint.raw_expr
        if isinstance(expr, ast.A_Const) and expr.isnull:
            return None
        if isinstance(expr, ast.TypeCast) and isinstance(expr.arg, ast.A_Const):
            return None if expr.arg.isnull else expr
        return expr
    return None


def is_validating(constraint: ast.Constraint) -> bool:
    """True when adding the constraint checks the existing rows (no NOT VALID / NOT
    ENFORCED): pglast sets `skip_validation` for both."""
    return not constraint.skip_validation


def altered_table(statement: Statement, context: Context) -> RelationName | None:
    """The relation an `ALTER TABLE` statement changes, resolved in `context`."""
    node = statement.node
    if not table_commands(node) or not isinstance(node.relation, ast.RangeVar):
        return None
    return relation_name(node.relation, context)


def existing_altered_table(statement: Statement, context: Context) -> RelationName | None:
    """The table an `ALTER TABLE` statement changes when it existed before this
    migration; None for other statements and for tables created in it (new and empty)."""
    table = altered_table(statement, context)
    return None if table is None or context.is_new(table) else table


def column_ref_name(node: Any) -> str | None:
    """`col` for a bare one-part column reference, else None."""
    fields = node.fields if isinstance(node, ast.ColumnRef) else None
    if fields and len(fields) == 1 and isinstance(fields[0], ast.String):
        return str(fields[0].sval)
    return None


def string_constants(node: Any) -> Iterator[str]:
    """Every string literal inside `node` (depth-first)."""
    for found in iter_nodes(node):
        if isinstance(found, ast.A_Const):
            value = const_value(found)
            if isinstance(value, str):
                yield value


def column_type(type_name: ast.TypeName) -> ColumnType:
    """The `ColumnType` of a parsed TypeName."""
    parts = name_list(type_name.names or ())
    mods = tuple(_int_or_none(const_value(m)) for m in type_name.typmods or ())
    schema = parts[-2] if len(parts) >= 2 and parts[-2] != "pg_catalog" else None
    if schema is None and parts[-1] in _SERIAL_STORAGE:  # a serial column is an integer
        parts[-1] = _SERIAL_STORAGE[parts[-1]]
    return ColumnType(parts[-1], schema, mods, bool(type_name.arrayBounds))


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Binary-coercible pairs (pg_cast castmethod 'b'): no rewrite when the target has no typmod.
BINARY_COERCIBLE = frozenset(
    {
        ("varchar", "text"),
        ("text", "varchar"),
        ("cidr", "inet"),
        ("xml", "text"),
        ("text", "citext"),
        ("varchar", "citext"),
        ("citext", "text"),
        ("citext", "varchar"),
    }
)
TIMESTAMP_PAIRS = frozenset({("timestamp", "timestamptz"), ("timestamptz", "timestamp")})
# Types whose typmod can grow in place (a support function drops the length coercion).
_WIDENABLE = frozenset({"varchar", "varbit", "timestamp", "timestamptz", "time", "timetz"})
_DEFAULT_PRECISION = 6  # timestamp/time without (p)


def rewrite_needed(old: ColumnType, new: ColumnType, *, utc_session: bool) -> bool | None:
    """Whether changing a column from `old` to `new` rewrites the table (True/False), or
    None when unknown (extension types, domains, enums). `utc_session` means PostgreSQL
    12+ with a zero-offset TimeZone, where timestamp <-> timestamptz is free."""
    if old.array != new.array:
        return True
    if old.name == new.name and old.schema == new.schema:
        if old.builtin:
            return not _typmod_widens(old, new)
        return False if old.mods == new.mods else None  # unknown typmod semantics
    pair = (old.name, new.name)
    if pair in BINARY_COERCIBLE:
        return bool(new.mods)
    if pair in TIMESTAMP_PAIRS:
        return not utc_session
    if old.builtin and new.builtin:
        return True
    return None


_INTEGER_BYTES = {"int2": 2, "int4": 4, "int8": 8}
_LENGTH_LIMITED = frozenset({"varchar", "bpchar", "varbit", "bit"})
_UNLIMITED_TEXT = frozenset({"text", "varchar", "citext"})


def narrows(old: ColumnType, new: ColumnType) -> bool:
    """Whether some value of `old` does not fit `new` (the change can fail): a shorter
    length limit, a smaller integer, fewer integer digits of a numeric, unlimited text
    into a length-limited type. Rounding (scale, fractional seconds) is not failing."""
    if old.array != new.array:
        return False
    if old.name in _INTEGER_BYTES and new.name in _INTEGER_BYTES:
        return _INTEGER_BYTES[new.name] < _INTEGER_BYTES[old.name]
    limited = new.name in _LENGTH_LIMITED and bool(new.mods) and new.mods[0] is not None
    if limited and (old.name == new.name or (old.name in _UNLIMITED_TEXT and not old.mods)):
        return not old.mods or (old.mods[0] is not None and (new.mods[0] or 0) < old.mods[0])
    if old.name == new.name == "numeric" and new.mods and None not in new.mods:
        return _integer_digits(new.mods) < _integer_digits(old.mods) if old.mods else True
    return False


def _integer_digits(mods: tuple[int | None, ...]) -> int:
    """numeric(p, s) holds p - s digits before the point."""
    precision = mods[0] or 0
    return precision - (mods[1] or 0 if len(mods) > 1 else 0)


def rewrite_needed_from_unknown(new: ColumnType) -> bool | None:
    """Whether a type change into `new` rewrites whatever the old type was (True), or
    None when some old type could reach `new` without one."""
    return True if new.builtin and new.name in ALWAYS_REWRITTEN_INTO else None


def _typmod_widens(old: ColumnType, new: ColumnType) -> bool:
    if old.mods == new.mods or not new.mods:
        return old.mods == new.mods or new.name in _WIDENABLE | {"numeric"}
    if new.name == "numeric":
        return _numeric_widens(old.mods, new.mods)
    if new.name not in _WIDENABLE or None in new.mods:
        return False
    if not old.mods:  # varchar/varbit without (n) is unlimited; time types default to 6
        return new.name not in {"varchar", "varbit"} and (new.mods[0] or 0) >= _DEFAULT_PRECISION
    return (old.mods[0] or 0) <= (new.mods[0] or 0)


def _numeric_widens(old: tuple[int | None, ...], new: tuple[int | None, ...]) -> bool:
    """numeric(p,s) -> numeric(p2,s) with p2 >= p keeps every value: no rewrite."""
    if not old or None in old or None in new:
        return False
    old_scale = old[1] if len(old) > 1 else 0
    new_scale = new[1] if len(new) > 1 else 0
    return old_scale == new_scale and (new[0] or 0) >= (old[0] or 0)


def implies_not_null(expr: Any, column: str) -> bool:
    """True when a CHECK expression can only hold if `column` is not null, in the forms
    PostgreSQL's SET NOT NULL recognises (`col IS NOT NULL`, possibly AND-ed)."""
    if isinstance(expr, ast.NullTest):
        return expr.nulltesttype == NullTestType.IS_NOT_NULL and _names_column(expr.arg, column)
    if isinstance(expr, ast.BoolExpr) and expr.boolop == BoolExprType.AND_EXPR:
        return any(implies_not_null(arg, column) for arg in expr.args or ())
    if isinstance(expr, ast.BoolExpr) and expr.boolop == BoolExprType.NOT_EXPR:
        inner = (expr.args or (None,))[0]
        return (
            isinstance(inner, ast.NullTest)
            and inner.nulltesttype == NullTestType.IS_NULL
            and _names_column(inner.arg, column)
        )
    return False


def _names_column(node: Any, column: str) -> bool:
    """`col` or `table.col` naming `column`."""
    if not isinstance(node, ast.ColumnRef) or not node.fields:
        return False
    last = node.fields[-1]
    return isinstance(last, ast.String) and last.sval == column


_SERIAL_STORAGE = {
    "serial": "int4",
    "serial4": "int4",
    "bigserial": "int8",
    "serial8": "int8",
    "smallserial": "int2",
    "serial2": "int2",
}
SERIAL_TYPES = frozenset(_SERIAL_STORAGE)


def is_serial(column: ast.ColumnDef) -> bool:
    """`serial` and friends: not types but a sequence plus a nextval() default."""
    type_name = column.typeName
    if type_name is None or type_name.arrayBounds:
        return False
    names = name_list(type_name.names or ())
    return len(names) == 1 and names[0] in SERIAL_TYPES


# TimeZone names with a fixed zero offset: PostgreSQL 12+ converts timestamp <->
# timestamptz without a rewrite under them.
ZERO_OFFSET_ZONES = _words(
    "utc etc/utc uct etc/uct gmt etc/gmt gmt0 etc/gmt0 gmt+0 gmt-0 etc/gmt+0 "
    "etc/gmt-0 greenwich etc/greenwich universal etc/universal zulu etc/zulu z 0"
)


def keeps_contents(using: Any, column: str) -> bool:
    """True for a `USING` expression that is just the column, maybe cast or collated
    (`USING col`, `USING col::text`): it changes no value by itself."""
    while isinstance(using, (ast.TypeCast, ast.CollateClause)):
        using = using.arg
    return column_ref_name(using) == column
