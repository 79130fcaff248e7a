"""Names a migration gives things, as plain values: a relation's schema-qualified name
and a column's declared type.

They sit below every other module of this layer (statements, schema facts, AST
helpers, column rules all use them), so they import nothing from it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class RelationName:
    """A schema-qualified relation name, already case-folded as PostgreSQL does."""

    schema: str
    name: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.name}"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Types whose every change into them from another type rewrites the table.
ALWAYS_REWRITTEN_INTO = _words(
    "int2 int4 int8 float4 float8 bool uuid json jsonb date bytea money bpchar bit "
    "tsvector cidr macaddr macaddr8 xml"
)
# Types some other type (or a narrower form of themselves) reaches without a rewrite.
MAYBE_FREE_INTO = _words("varchar text numeric varbit inet timestamptz timestamp time timetz interval")
BUILTIN_TYPES = ALWAYS_REWRITTEN_INTO | MAYBE_FREE_INTO


@dataclass(frozen=True)
class ColumnType:
    """A column's declared type as the parser saw it."""

    name: str  # catalog name: int4, varchar, timestamptz, citext ...
    schema: str | None  # as written; None for unqualified and pg_catalog types
    mods: tuple[int | None, ...]  # typmods (length, precision, scale); None if not constant
    array: bool

    @property
    def builtin(self) -> bool:
        """A core type whose casts we know (not an extension, enum or domain)."""
        return self.schema is None and self.name in BUILTIN_TYPES

    def __str__(self) -> str:
        name = _SQL_NAMES.get(self.name, self.name) if self.schema is None else self.name
        mods = f"({','.join(str(m) for m in self.mods)})" if self.mods else ""
        return f"{name}{mods}{'[]' if self.array else ''}"


# How people write the types the catalog names int8, bool ...
_SQL_NAMES = {
    "int2": "smallint",
    "int4": "integer",
    "int8": "bigint",
    "float4": "real",
    "float8": "double precision",
    "bool": "boolean",
    "bpchar": "char",
}
