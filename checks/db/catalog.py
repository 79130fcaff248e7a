"""One catalog snapshot of a schema, and one diff of two snapshots.

`read_snapshot` reads every object of a schema from pg_catalog with the schema alone on
the search path, so PostgreSQL prints the schema's own objects unqualified
(`pg_get_indexdef`, `pg_get_constraintdef`, `pg_get_expr`, `pg_get_triggerdef`) and the
same definition read from two databases, or from two schemas of different names,
compares equal: the server has normalized both (casts, parentheses, `IN` lists as
`= ANY`, operator classes), and structure is compared, not the text anyone wrote.

`diff(expected, actual)` says what differs, object by object. Every comparison of two
catalogs goes through these two: `verify --profile` (a live schema against a fresh
install of the profile), `apply` (schema.sql against `alembic upgrade head`) and the
migration tests.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from agentddl.checks.db.catalog_queries import PRIVILEGE_QUERIES, PRIVILEGES, QUERIES, SCHEMA_PLACEHOLDER
from agentddl.checks.db.rows import Connection, Row, fetch, session_settings

Shape = tuple[tuple[str, Any], ...]  # (field, value) pairs, in query order
KINDS = (*QUERIES, "privileges")
_NOT_SHAPE = ("name", "table_name", "valid", "ddl")  # validity is compared on its own


@dataclass(frozen=True)
class Snapshot:
    """A schema's objects by kind then name (kinds: the keys of `QUERIES`), and the
    privileges of the roles it was read for, by (role, object)."""

    schema: str
    objects: dict[str, dict[str, Shape]] = field(default_factory=dict)
    tables_of: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> name -> table
    valid: dict[str, dict[str, bool]] = field(default_factory=dict)  # indexes, constraints
    ddl: dict[str, dict[str, str]] = field(default_factory=dict)  # how to create it, where known
    # an object is a table's name, `FUNCTION f(args)`, `SEQUENCE s` or `SCHEMA` (the schema)
    privileges: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def get(self, kind: str, name: str) -> Shape | None:
        return self.objects.get(kind, {}).get(name)

    def names(self, kind: str) -> set[str]:
        return set(self.objects.get(kind, {}))


def search_path(connection: Connection, schema: str) -> AbstractContextManager[None]:
    """The schema alone on the search path (so its objects print unqualified), restored after."""
    quoted = fetch(connection, "SELECT quote_ident(%(s)s) AS q", {"s": schema})[0]["q"]
    return session_settings(connection, {"search_path": quoted})


def read_snapshot(connection: Connection, schema: str, roles: Sequence[str] = ()) -> Snapshot:
    """Every object of `schema`, and what each of `roles` may do to it and to its tables
    (and their columns), sequences and functions. Only reads: fine on a read-only session."""
    snapshot = Snapshot(schema)
    params = {"schema": schema, "roles": list(roles), "privileges": list(PRIVILEGES)}
    with search_path(connection, schema):
        for kind, query in QUERIES.items():
            _add(snapshot, kind, fetch(connection, query, params))
        for query in PRIVILEGE_QUERIES:
            for row in fetch(connection, query, params):
                snapshot.privileges[(row["role"], row["object"])] = frozenset(row["granted"])
    return snapshot


def _add(snapshot: Snapshot, kind: str, rows: list[Row]) -> None:
    for row in rows:
        if "body" in row:  # function bodies are text as written: they name their schema
            row["body"] = re.sub(rf"\b{re.escape(snapshot.schema)}\b", SCHEMA_PLACEHOLDER, row["body"])
    snapshot.objects[kind] = {row["name"]: _shape(row) for row in rows}
    snapshot.tables_of[kind] = {row["name"]: row["table_name"] for row in rows}
    snapshot.valid[kind] = {row["name"]: row.get("valid", True) for row in rows}
    snapshot.ddl[kind] = {row["name"]: row.get("ddl", "") for row in rows}


def _shape(row: Row) -> Shape:
    return tuple((key, value) for key, value in row.items() if key not in _NOT_SHAPE)


class Change(NamedTuple):
    """One field of an object that differs: its value in each snapshot."""

    field: str
    expected: Any
    actual: Any


@dataclass(frozen=True)
class Difference:
    """One object that differs between two snapshots.

    what: missing (only in expected), unexpected (only in actual), differs (a field of
    its shape, see `changes`), validity (same shape; one is invalid or not validated).
    Privileges are kind "privileges", named `role on object`.
    """

    kind: str
    name: str
    table: str  # the table it belongs to ('' for functions, the schema's privileges, ...)
    what: Literal["missing", "unexpected", "differs", "validity"]
    changes: tuple[Change, ...] = ()

    def __str__(self) -> str:
        detail = "; ".join(f"{c.field}: {c.expected!r} -> {c.actual!r}" for c in self.changes)
        return f"{self.kind} {self.name}: {self.what}" + (f" ({detail})" if detail else "")


def diff(expected: Snapshot, actual: Snapshot, kinds: Collection[str] = KINDS) -> list[Difference]:
    """What differs between two snapshots, kind by kind (in `kinds`), by name."""
    found: list[Difference] = []
    for kind in (k for k in KINDS if k in kinds):
        found += _privileges(expected, actual) if kind == "privileges" else _objects(kind, expected, actual)
    return found


def _objects(kind: str, expected: Snapshot, actual: Snapshot) -> Iterator[Difference]:
    wanted, got = expected.objects.get(kind, {}), actual.objects.get(kind, {})
    for name in sorted(wanted.keys() | got.keys()):
        table = (expected if name in wanted else actual).tables_of[kind][name]
        if name not in got:
            yield Difference(kind, name, table, "missing")
        elif name not in wanted:
            yield Difference(kind, name, table, "unexpected")
        elif wanted[name] != got[name]:
            yield Difference(kind, name, table, "differs", changes(wanted[name], got[name]))
        elif (valid := expected.valid[kind][name]) != (now := actual.valid[kind][name]):
            yield Difference(kind, name, table, "validity", (Change("valid", valid, now),))


def changes(expected: Shape, actual: Shape) -> tuple[Change, ...]:
    """Every field whose value differs, in the order the catalog query reads them."""
    wanted = dict(expected)
    return tuple(Change(key, wanted.get(key), value) for key, value in actual if wanted.get(key) != value)


def _privileges(expected: Snapshot, actual: Snapshot) -> Iterator[Difference]:
    wanted, got = expected.privileges, actual.privileges
    for role, obj in sorted(wanted.keys() | got.keys()):
        name = f"{role} on {obj}"
        if (role, obj) not in got:
            yield Difference("privileges", name, "", "missing")
        elif (role, obj) not in wanted:
            yield Difference("privileges", name, "", "unexpected")
        elif wanted[(role, obj)] != got[(role, obj)]:
            change = Change("granted", sorted(wanted[(role, obj)]), sorted(got[(role, obj)]))
            yield Difference("privileges", name, "", "differs", (change,))
