"""ADL217: a column type change that existing values may not fit."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from pglast import ast
from pglast.enums import AlterTableType

from agentddl.checks.lint.existing_table import ExistingTableRule
from agentddl.checks.lint.probe import DataCheck, column_sql, data_check, deparsed, quoted
from agentddl.checks.lint.types import Context, RelationName, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes
from agentddl.checks.pg.columns import (
    column_ref_name,
    column_type,
    commands_of,
    narrows,
)
from agentddl.checks.pg.known_columns import known_column
from agentddl.checks.pg.names import ColumnType
from agentddl.checks.pg.schema import same_type

_STRINGS = frozenset({"text", "varchar", "bpchar", "citext"})
_NUMBERS = frozenset({"int2", "int4", "int8", "numeric", "float4", "float8"})
_INTEGER_RANGE = {"int2": 2**15, "int4": 2**31, "int8": 2**63}
_COPY = "Run the change on a recent copy of production first; fix the values that fail in an earlier step."
_NOT_ONE_QUERY = "which values this conversion rejects is not one query"
INPUT_IS_VALID_SINCE = 16  # pg_input_is_valid(text, type)


class TypeChangeOverUnfitValues(ExistingTableRule):
    """
    ## What it does
    Flags `ALTER COLUMN ... TYPE` on a table that existed before this migration when
    some existing value may not fit the new type: text into a number, date, uuid or
    other typed column, a number into a smaller integer, a value longer than a new
    `varchar(n)` / `char(n)`, or a `USING` expression that casts. A change
    that cannot fail is not flagged: into `text` or `varchar` without a length, to the
    same type, or widening. The old type must be known (from `--schema-from`,
    Alembic's `existing_type=` or earlier in the migration): from an unknown one only
    a `USING` expression with an explicit cast (`USING code::integer`) is flagged, as
    column-type-change-rewrites judges a change into `varchar(n)` from an unknown type
    a likely widening.

    Without a database it is a **warning** saying what to check; a narrowing of a known
    type is column-type-change-rewrites' finding alone (it says the change may fail).
    With `--schema-from postgresql://...` the linter asks that database, with one
    read-only `SELECT EXISTS (...)` under a statement_timeout: a value longer than the
    new length, a number outside the new integer's range, or a string that is not
    valid input for the new type (`pg_input_is_valid`, PostgreSQL 16+). An **error**
    when such a value exists (the message says what was counted and how long it took),
    nothing when none does, and the warning again when the check timed out, cannot be
    one query (a `USING` expression, other casts), or the table is changed earlier in
    the migration. Version-aware: for a target before PostgreSQL 16 the string check
    is not run (the function does not exist there: "function pg_input_is_valid(...)
    does not exist" on 14 and 15), and the warning says so.

    ## Why is this bad?
    The conversion runs over every row while the table is rewritten under an ACCESS
    EXCLUSIVE lock, and the first value that does not convert ("value too long for
    type character varying(20)", "integer out of range", "invalid input syntax for
    type integer") fails the statement after all that work: the migration stops
    half-way. The longest, largest and oddest values live on production.

    ## Example
    ```sql
    ALTER TABLE public.users ALTER COLUMN nickname TYPE varchar(20);
    ALTER TABLE public.orders ALTER COLUMN external_ref TYPE integer USING external_ref::integer;
    ```

    ## Use instead
    Check the values first, e.g.
    `SELECT EXISTS (SELECT FROM public.users WHERE char_length(nickname) > 20)`, fix
    or reject them in an earlier step; better, add a new column of the new type,
    backfill it in batches (converting explicitly), and swap the columns.

    ## In an Alembic migration
    `op.alter_column(..., type_=sa.String(20), existing_type=sa.Text())` tells the
    linter the old type; run the value check in a data revision before it.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-SET-DATA-TYPE
    - https://www.postgresql.org/docs/current/functions-info.html#FUNCTIONS-INFO-VALIDITY
    """

    code = "ADL217"
    name = "type-change-over-unfit-values"
    severity = "warning"

    def check_table(self, statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
        for command in commands_of(statement.node, AlterTableType.AT_AlterColumnType):
            definition = command.def_
            if not isinstance(definition, ast.ColumnDef) or definition.typeName is None:
                continue
            column = str(command.name)
            old = known_column(statement, context, table, column).type
            new, using = column_type(definition.typeName), definition.raw_default
            if using is None and old is not None and old.name in _STRINGS and not _string_like(new):
                yield _no_automatic_cast(_Change(table, column, old, new, using), old)
            elif _may_fail(old, new, using):
                yield _may_not_fit(context, _Change(table, column, old, new, using))


@dataclass(frozen=True)
class _Change:
    """`ALTER TABLE table ALTER COLUMN column TYPE new [USING using]`, from `old` (None: unknown)."""

    table: RelationName
    column: str
    old: ColumnType | None
    new: ColumnType
    using: ast.Node | None


def _string_like(kind: ColumnType) -> bool:
    return kind.name in _STRINGS or kind.schema is not None or not kind.builtin


def _no_automatic_cast(change: _Change, old: ColumnType) -> Violation:
    table, column, new = change.table, change.column, change.new
    return Violation(
        message=f"Changing {table}.{column} from {old} to {new} fails whatever the rows hold:"
        f" PostgreSQL does not convert {old} to {new} without a USING clause.",
        fix=f"Add USING {column_sql(column)}::{new}, after checking that every value converts"
        f" (pg_input_is_valid({column_sql(column)}, '{new}'), PostgreSQL 16+).",
        severity="error",
        by_size=False,
    )


def _may_not_fit(context: Context, change: _Change) -> Violation:
    check = _data_check(context, change)
    old, new = change.old, change.new
    # a narrowing of a known type: column-type-change-rewrites says it may fail
    quiet = change.using is None and old is not None and narrows(old, new)
    return Violation(
        message=f"Changing {change.table}.{change.column} to {new} fails if one of its values does not fit.",
        fix=f"Check the values first ({check.sql}) and fix them in an earlier step." if check else _COPY,
        by_size=False,
        data_check=replace(
            check or DataCheck("", f"values {new} rejects", _NOT_ONE_QUERY), quiet_unprobed=quiet
        ),
    )


def _may_fail(old: ColumnType | None, new: ColumnType, using: ast.Node | None) -> bool:
    """Some value of `old` may not convert to `new`: a narrowing, a conversion across
    types (text into integer), an explicit cast in USING. An unknown old type is not
    judged (as column-type-change-rewrites does not), nor one into unlimited text."""
    if using is not None and any(isinstance(node, ast.TypeCast) for node in iter_nodes(using)):
        return True
    if old is None or new.array or old.array or (new.name in _STRINGS - {"bpchar"} and not new.mods):
        return False
    if same_type(old, new):
        return False
    if narrows(old, new):
        return True
    if old.name in _STRINGS and new.name in _STRINGS:  # fits unless the new length is shorter
        return bool(new.mods) and not (old.mods and (old.mods[0] or 0) <= (new.mods[0] or 0))
    if old.name == new.name:
        return False
    integers = old.name in _INTEGER_RANGE and new.name in _INTEGER_RANGE
    return not (
        integers or (old.name in _INTEGER_RANGE and new.name in ("numeric", "float8") and not new.mods)
    )


def _casts_the_column(using: ast.Node, column: str, new: ColumnType) -> bool:
    """USING is `column::new_type`: the values convert as the cast converts them."""
    if not isinstance(using, ast.TypeCast) or using.typeName is None:
        return False
    return column_ref_name(using.arg) == column and column_type(using.typeName) == new


def _data_check(context: Context, change: _Change) -> DataCheck | None:
    """The query finding a value that does not fit, None when it is not one query (a
    USING expression other than `col::new_type`, a cast other than from text, a length
    or an integer range). A string's validity is asked of `pg_input_is_valid`, which a
    target before PostgreSQL 16 does not have: the check is then not run."""
    old, new, using = change.old, change.new, change.using
    if using is not None and not _casts_the_column(using, change.column, new):
        return None
    name = column_sql(change.column)
    looks_for = f"values of {change.table}.{change.column} that do not fit {new}"
    since = 0  # the PostgreSQL version the query needs
    if new.name in ("varchar", "bpchar") and new.mods and new.mods[0] is not None:
        unfit = f"char_length(rtrim({name}::text)) > {new.mods[0]}"
    elif old is not None and old.name in _NUMBERS and new.name in _INTEGER_RANGE:
        limit = _INTEGER_RANGE[new.name]
        unfit = f"round({name}::numeric) NOT BETWEEN {-limit} AND {limit - 1}"
    elif old is not None and old.name in _STRINGS:
        unfit = f"NOT pg_input_is_valid({name}::text, {deparsed(ast.A_Const(val=ast.String(sval=str(new))))})"
        since = INPUT_IS_VALID_SINCE
    else:
        return None
    found = data_check(
        context, [change.table], f"SELECT FROM {quoted(change.table)} WHERE {unfit}", looks_for
    )
    if found.blocked is None and context.pg_version < since:
        return replace(found, blocked=f"pg_input_is_valid is PostgreSQL {since}+")
    return found
