"""ADL209: ALTER COLUMN TYPE that rewrites an existing table."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType

from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.columns import (
    ZERO_OFFSET_ZONES,
    column_ref_name,
    column_type,
    commands_of,
    existing_altered_table,
    keeps_contents,
    narrows,
    rewrite_needed,
    rewrite_needed_from_unknown,
)
from agentddl.checks.pg.known_columns import known_column
from agentddl.checks.pg.names import MAYBE_FREE_INTO, ColumnType
from agentddl.checks.pg.schema import same_type

UTC_SKIPS_REWRITE_SINCE = 12  # timestamp <-> timestamptz is free under a UTC TimeZone

_FIX = (
    "Add a column of the new type, backfill it in batches (a trigger keeps it current), "
    "then swap the columns in one short transaction."
)
_TZ_FIX = (
    "SET timezone = 'UTC' earlier in the same session (PostgreSQL 12+ then skips the "
    "rewrite), or add a new column and backfill it in batches."
)


class ColumnTypeChangeRewrites(Rule):
    """
    ## What it does
    Flags a column type change that rewrites a table that existed before this
    migration.

    Flags `ALTER TABLE ... ALTER COLUMN c TYPE t` on a table that existed before this
    migration when the change rewrites the table. The old type is usually not in the
    migration, so a change is flagged when it rewrites whatever the old type was (into
    `bigint`, `uuid`, `jsonb`, `boolean`, `date` ...), when a `USING` expression
    computes new values, when the old type is known from earlier in the migration and
    the change is not one of the free ones, and for `timestamp` -> `timestamptz` unless
    the migration set a UTC TimeZone first (PostgreSQL 12+). That last case is a
    warning, not an error: it rewrites only when the server's TimeZone is not UTC,
    which the migration alone does not show.

    Free changes, not flagged: `varchar(n)` -> `varchar(m)` with m >= n, `varchar` <->
    `text` (no length), `numeric(p,s)` -> `numeric(p2,s)` with p2 >= p or
    `numeric`, `varbit(n)` widening, `timestamp(p)` widening, `cidr` -> `inet`,
    `xml` -> `text`, `text`/`varchar` <-> `citext`. Changes into `varchar(n)`,
    `numeric(p,s)` and similar from an unknown old type are not flagged either: they
    are free when they widen, and the old width is not visible here, unless the
    statement carries it: Alembic's `existing_type=` (which autogenerate always writes)
    is passed on as a `/* agentddl: existing-type "col" VARCHAR(10) */` comment in the
    offline SQL, and a hand-written migration may carry the same comment. A `USING` clause
    counts as a conversion (a rewrite) unless it is the bare column, or a plain cast
    of it into such a type (`USING note::text`).

    With `--schema-from` the old type is known for every column of the schema: a
    narrowing change (`varchar(20)` -> `varchar(10)`, `bigint` -> `integer`, fewer
    integer digits of a `numeric`, `text` -> `varchar(n)`) is flagged as a rewrite that
    also fails when a value (the column's default included: the schema's, or Alembic's
    `existing_server_default=`) does not fit, and a "change" to the type the column already
    has is not flagged (PostgreSQL neither rewrites nor rebuilds anything for it). The
    severity of a rewrite (not of a narrowing, which may fail whatever the size) follows
    the table's size there: info on a small table, warning on a medium one (see
    `table_size` in the configuration).

    ## Why is this bad?
    A type change that is not binary-coercible rewrites every row and rebuilds every
    index on the table while holding an ACCESS EXCLUSIVE lock: no reads, no writes,
    for as long as the copy takes. (A free change still takes that lock briefly; that
    is require-lock-timeout's concern.)

    ## Example
    ```sql
    ALTER TABLE agent.events ALTER COLUMN id TYPE bigint;
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.events ADD COLUMN id_new bigint;
    -- keep id_new in sync with a trigger, backfill in batches, build indexes
    -- CONCURRENTLY, then swap the columns in one short transaction.
    ```
    For `timestamp` -> `timestamptz` on PostgreSQL 12+:
    ```sql
    SET timezone = 'UTC';
    ALTER TABLE agent.events ALTER COLUMN created_at TYPE timestamptz;
    ```

    ## In an Alembic migration
    `op.alter_column(..., type_=sa.BigInteger())` emits the same `ALTER COLUMN ... TYPE`.
    Give `existing_type=` (autogenerate does) so that a widening such as
    `sa.String(64)` -> `sa.String(255)` is known to be free and a narrowing is flagged.
    Use `op.add_column` for the new column and batched `op.execute` backfills instead,
    across several revisions.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    - https://www.postgresql.org/docs/release/12.0/ (timestamp to timestamptz under UTC)
    """

    code = "ADL209"
    name = "column-type-change-rewrites"
    severity = "error"
    node_types = (ast.AlterTableStmt,)
    scales_with_table_size = True

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        table = existing_altered_table(statement, context)
        if table is None:
            return
        changes = list(commands_of(statement.node, AlterTableType.AT_AlterColumnType))
        utc = bool(changes) and _utc_session(statement, context)
        for cmd in changes:
            definition = cmd.def_
            if not isinstance(definition, ast.ColumnDef) or definition.typeName is None:
                continue
            new = column_type(definition.typeName)
            known = known_column(statement, context, table, str(cmd.name))
            column, using = str(cmd.name), definition.raw_default
            change = _Change(table, column, new, using, context, known.type, known.default)
            violation = change.violation(utc)
            if violation is not None:
                yield violation


def _utc_session(statement: Statement, context: Context) -> bool:
    return context.pg_version >= UTC_SKIPS_REWRITE_SINCE and context.timezone in ZERO_OFFSET_ZONES


@dataclass
class _Change:
    """One `ALTER COLUMN ... TYPE new [USING using]` of a pre-existing table."""

    table: RelationName
    column: str
    new: ColumnType
    using: Any
    context: Context
    old: ColumnType | None = None  # the type before: earlier in the migration, a hint, the schema
    default: str | None = None  # its DEFAULT before (the schema, Alembic's existing_server_default)

    def violation(self, utc: bool) -> Violation | None:
        old, plain = self.old, self.using is None or self._using_is_plain_cast()
        if old is not None and plain and same_type(old, self.new):
            return None  # nothing changes: no rewrite, no index rebuilt
        if old is not None and narrows(old, self.new):
            return self._narrows(old)
        if not plain:
            return self._rewrites(" with a USING conversion")
        verdict = None if old is None else rewrite_needed(old, self.new, utc_session=utc)
        if verdict is not None:
            return self._rewrites() if verdict else None
        if self.new.name == "timestamptz" and not self.new.array and not utc:
            return self._timezone_dependent()
        return self._rewrites() if rewrite_needed_from_unknown(self.new) else None

    def _using_is_plain_cast(self) -> bool:
        """`USING col`, or `USING col::text` into a type some old type reaches for free;
        other USING clauses convert values (`USING col::run_status`, `lower(col)`)."""
        if column_ref_name(self.using) == self.column:
            return True
        free_target = self.new.builtin and self.new.name in MAYBE_FREE_INTO
        return (free_target or self.new.name == "citext") and keeps_contents(self.using, self.column)

    def _rewrites(self, how: str = "") -> Violation:
        return Violation(
            message=(
                f"Changing {self.table}.{self.column} to {self.new}{how} rewrites all of "
                f"{self.table} and rebuilds its indexes under an ACCESS EXCLUSIVE lock that "
                "blocks reads and writes."
            ),
            fix=_FIX,
        )

    def _narrows(self, old: ColumnType) -> Violation:
        return Violation(
            message=(
                f"Changing {self.table}.{self.column} from {old} to {self.new} rewrites all of "
                f"{self.table} under an ACCESS EXCLUSIVE lock that blocks reads and writes, "
                f"and fails if a value does not fit {self.new}"
                + (f" (its default, {self.default}, included)." if self.default else ".")
            ),
            fix=(
                f"Check that every value fits {self.new} first; then add a new column (or a "
                "CHECK constraint NOT VALID + VALIDATE), backfill in batches and swap."
            ),
            by_size=False,  # it may fail: not milder on a small table
        )

    def _timezone_dependent(self) -> Violation:
        if self.context.pg_version < UTC_SKIPS_REWRITE_SINCE:
            return self._rewrites()
        return Violation(
            message=(
                f"Changing {self.table}.{self.column} to timestamptz rewrites all of "
                f"{self.table} under an ACCESS EXCLUSIVE lock unless the session TimeZone "
                "is UTC."
            ),
            fix=_TZ_FIX,
            severity="warning",  # free when the server's own TimeZone is UTC
        )
