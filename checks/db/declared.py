"""Does a catalog hold what a model declares? Every table, column, constraint and index
of a `SchemaModel`, present and valid in a `Snapshot`, with the declared structure.

`diff` compares two catalogs; this compares one with the model itself, so DDL that
does not say what the model means (a lost DESC, a key in another order, an index no
longer partial, another ON DELETE) is caught even when every install agrees with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from agentddl.checks.db.catalog import Change, Difference, Snapshot
from agentddl.generator.model import SchemaModel
from agentddl.generator.model.types import Index, Table

_DESC = 1  # pg_index.indoption bit INDOPTION_DESC
ROLE_KINDS: tuple[Literal["owner", "app", "relay", "readonly"], ...] = ("owner", "app", "relay", "readonly")


def model_roles(model: SchemaModel) -> list[str]:
    """The profile's roles: a snapshot read for them holds the privileges the model grants."""
    return [model.profile.role(kind) for kind in ROLE_KINDS]


def compare_with_model(model: SchemaModel, snapshot: Snapshot) -> list[Difference]:
    """What the snapshot lacks or holds otherwise than the model declares (a missing
    table is one difference: its columns, constraints and indexes are not listed)."""
    problems: list[Difference] = []
    for table in model.tables:
        if table.name not in snapshot.names("tables"):
            problems.append(Difference("tables", table.name, table.name, "missing"))
            continue
        problems += _columns(table, snapshot)
        problems += _constraints(table, snapshot)
        problems += (problem for index in table.indexes for problem in _index(index, table, snapshot))
    return problems


def _columns(table: Table, snapshot: Snapshot) -> Iterator[Difference]:
    for column in table.columns:
        name = f"{table.name}.{column.name}"
        found = snapshot.get("columns", name)
        if found is None:
            yield Difference("columns", name, table.name, "missing")
        elif (not_null := dict(found)["not_null"]) != (not column.nullable):
            change = _changes(not_null=(not column.nullable, not_null))
            yield Difference("columns", name, table.name, "differs", change)


def _constraints(table: Table, snapshot: Snapshot) -> Iterator[Difference]:
    for name, kind, definition in _declared_constraints(table):
        found = snapshot.get("constraints", name)
        if found is None or snapshot.tables_of["constraints"][name] != table.name:
            yield Difference("constraints", name, table.name, "missing")
            continue
        shape = dict(found)
        if shape["kind"] != kind:
            yield Difference("constraints", name, table.name, "differs", _changes(kind=(kind, shape["kind"])))
        elif definition is not None and shape["definition"].replace('"', "") != definition:
            change = _changes(definition=(definition, shape["definition"]))
            yield Difference("constraints", name, table.name, "differs", change)
        elif not snapshot.valid["constraints"][name]:
            yield Difference("constraints", name, table.name, "validity", (Change("valid", True, False),))


def _declared_constraints(table: Table) -> list[tuple[str, str, str | None]]:
    """(name, contype, definition as pg_get_constraintdef prints it, None for CHECKs)."""
    primary_key = f"PRIMARY KEY ({_list(table.primary_key)})"
    found: list[tuple[str, str, str | None]] = [(table.pk_name, "p", primary_key)]
    found += [(check.name, "c", None) for check in table.checks]
    for fk in table.foreign_keys:
        on_delete = "" if fk.on_delete == "NO ACTION" else f" ON DELETE {fk.on_delete}"
        definition = f"FOREIGN KEY ({_list(fk.columns)}) REFERENCES {fk.ref_table}({_list(fk.ref_columns)})"
        found.append((fk.name, "f", definition + on_delete))
    found += [(unique.name, "u", f"UNIQUE ({_list(unique.columns)})") for unique in table.uniques]
    return found


def _index(index: Index, table: Table, snapshot: Snapshot) -> Iterator[Difference]:
    found = snapshot.get("indexes", index.name)
    if found is None or snapshot.tables_of["indexes"][index.name] != table.name:
        yield Difference("indexes", index.name, table.name, "missing")
        return
    shape = dict(found)
    declared = {
        "method": index.method,
        "unique": index.unique,
        "nulls_not_distinct": index.nulls_not_distinct,
        "partial": index.where is not None,
        "keys": [_declared_key(column) for column in index.columns],
    }
    columns = {column.name for column in table.columns}
    actual = {
        "method": shape["method"],
        "unique": shape["unique"],
        "nulls_not_distinct": shape["nulls_not_distinct"],
        "partial": shape["predicate"] != "",
        "keys": _keys(shape["keys"], shape["sort_options"], columns),
    }
    if declared != actual:
        differing = {key: (declared[key], actual[key]) for key in declared if declared[key] != actual[key]}
        yield Difference("indexes", index.name, table.name, "differs", _changes(**differing))
    elif not snapshot.valid["indexes"][index.name]:
        yield Difference("indexes", index.name, table.name, "validity", (Change("valid", True, False),))


def _declared_key(column: str) -> str:
    """A model's index column as `_keys` spells a catalog's: name [DESC], or (expression)."""
    return "(expression)" if column.startswith("(") else column.removesuffix(" ASC")


def _keys(keys: list[str], sort_options: str, columns: set[str]) -> list[str]:
    # int2vector as text is 0-based: "[0:1]={3,0}"
    options = [int(option) for option in sort_options.rpartition("=")[2].strip("{}").split(",") if option]
    spelled = []
    for key, option in zip(keys, options, strict=False):
        name = key.strip('"') if key.strip('"') in columns else "(expression)"
        spelled.append(name + (" DESC" if option & _DESC else ""))
    return spelled


def _changes(**fields: tuple[object, object]) -> tuple[Change, ...]:
    return tuple(Change(name, expected, actual) for name, (expected, actual) in fields.items())


def _list(columns: tuple[str, ...]) -> str:
    return ", ".join(columns)
