"""What is known about a database's schema before a migration runs: `SchemaFacts`.

The linter reads a migration alone; with `agentddl lint --schema-from` it also knows the
tables the migration changes: their columns (type, nullability, default), constraints,
whether they are partitioned; and their size in rows and bytes, which only production's
sizes fill in (`--sizes-from`, lint/sizes.py), never the schema source's own. Facts are plain data,
built the same way from every source (`pg.schema_parse.parse_schema`): a schema.sql or
`pg_dump` text, a profile's rendered schema, or a live database's `pg_dump` (read by
the database layer, parsed here), so the lint family needs no database driver.

A table or column the facts do not name is unknown, and a rule then behaves as it does
without facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from agentddl.checks.pg.names import ColumnType, RelationName

ConstraintKind = Literal["primary", "unique", "check", "foreign", "exclusion", "not_null"]
BLOCK_SIZE = 8192  # bytes per page (relpages): the size every PostgreSQL build uses by default


@dataclass(frozen=True)
class ColumnFacts:
    """One column as the schema declares it."""

    name: str
    type: ColumnType | None  # None: a type the parser could not read
    not_null: bool = False
    default: str | None = None  # the DEFAULT expression's SQL, None without one


@dataclass(frozen=True)
class ConstraintFacts:
    """One table constraint: its kind, the columns it covers, whether it is validated;
    a foreign key also names the table it references (and those columns), a CHECK its
    expression."""

    name: str | None
    kind: ConstraintKind
    columns: tuple[str, ...] = ()
    validated: bool = True  # added NOT VALID and not validated since: False
    references: RelationName | None = None  # a foreign key's referenced table
    ref_columns: tuple[str, ...] = ()  # ... and columns; (): its primary key
    expression: str | None = None  # a CHECK's expression as SQL (pglast's deparse)


@dataclass(frozen=True)
class IndexFacts:
    """An index: its table and key columns (expressions leave a column out)."""

    name: RelationName
    table: RelationName
    columns: tuple[str, ...]
    unique: bool = False


@dataclass(frozen=True)
class TableFacts:
    """A table's columns, constraints, partitioning and size."""

    name: RelationName
    columns: Mapping[str, ColumnFacts] = field(default_factory=dict)
    constraints: tuple[ConstraintFacts, ...] = ()
    partitioned: bool = False  # PARTITION BY: its rows live in its partitions
    partition_of: RelationName | None = None
    rows: int | None = None  # estimated (pg_class.reltuples); None: unknown
    bytes: int | None = None  # heap bytes (relpages x 8 kB); None: unknown

    def column(self, name: str) -> ColumnFacts | None:
        return self.columns.get(name)


@dataclass(frozen=True)
class SchemaFacts:
    """Every table (partitions too) and index the source declares, and where they came from."""

    source: str  # for messages: "schema.sql", "profile 'default'", "db.example.com:5432/app"
    tables: Mapping[RelationName, TableFacts] = field(default_factory=dict)
    indexes: Mapping[RelationName, IndexFacts] = field(default_factory=dict)

    def table(self, name: RelationName) -> TableFacts | None:
        return self.tables.get(name)

    def column(self, table: RelationName, column: str) -> ColumnFacts | None:
        found = self.tables.get(table)
        return found.column(column) if found is not None else None

    def primary_key(self, table: RelationName) -> tuple[str, ...]:
        """The table's primary key columns; () when none is known."""
        found = self.tables.get(table)
        constraints = found.constraints if found is not None else ()
        return next((c.columns for c in constraints if c.kind == "primary"), ())

    def index(self, name: RelationName) -> IndexFacts | None:
        return self.indexes.get(name)


def same_type(old: ColumnType, new: ColumnType) -> bool:
    """The same type, typmods and array-ness: a "change" that changes nothing. A type
    named without its schema matches one with (`mood` and `public.mood`)."""
    schemas_match = old.schema == new.schema or old.schema is None or new.schema is None
    return schemas_match and (old.name, old.mods, old.array) == (new.name, new.mods, new.array)
