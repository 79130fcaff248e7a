"""Removing any one declared index, constraint, NOT NULL, trigger or function of the default
profile's schema makes `verify --profile` fail naming it (on 15 and 18). Each removal
runs in a transaction that is rolled back, so one installation serves them all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from profiles import example_profiles
from psycopg import sql

from agentddl.generator.model import SchemaModel

DEFAULT = example_profiles()["default"]


def removals(
    model: SchemaModel, triggers: dict[str, str], functions: list[str]
) -> Iterator[tuple[str, sql.Composed]]:
    """(object the finding must name, statement that removes it) for every declared object."""
    schema = sql.Identifier(model.schema)
    for table in model.tables:
        target = sql.SQL("{}.{}").format(schema, sql.Identifier(table.name))
        names = [table.pk_name, *(c.name for c in table.checks), *(k.name for k in table.foreign_keys)]
        for name in [*names, *(u.name for u in table.uniques)]:
            drop = sql.SQL("ALTER TABLE {} DROP CONSTRAINT {} CASCADE").format(target, sql.Identifier(name))
            yield f"{model.schema}.{name}", drop
        for index in table.indexes:
            drop = sql.SQL("DROP INDEX {}.{} CASCADE").format(schema, sql.Identifier(index.name))
            yield f"{model.schema}.{index.name}", drop
        for column in table.columns:
            if not column.nullable and not column.identity and column.name not in table.primary_key:
                drop = sql.SQL("ALTER TABLE {} ALTER COLUMN {} DROP NOT NULL").format(
                    target, sql.Identifier(column.name)
                )
                yield f"{model.schema}.{table.name}.{column.name}", drop
    for signature in functions:
        yield f"{model.schema}.{signature}", sql.SQL(f"DROP FUNCTION {{}}.{signature} CASCADE").format(schema)
    for name, table_name in triggers.items():
        on = sql.SQL("{}.{}").format(schema, sql.Identifier(table_name))
        drop = sql.SQL("DROP TRIGGER {} ON {}").format(sql.Identifier(name), on)
        yield f"{model.schema}.{name}", drop


def test_removing_any_declared_object_fails_naming_it(install: Any, profile_major: int | None) -> None:
    db = install(DEFAULT, profile_major)
    assert db.findings() == []
    triggers = db.reference.snapshot.tables_of["triggers"]
    assert triggers, "the default profile declares triggers"
    unnoticed, count = [], 0
    functions = sorted(db.reference.snapshot.objects["functions"])
    for obj, statement in removals(db.model, triggers, functions):
        count += 1
        with db.connection.transaction(force_rollback=True):
            db.connection.execute(statement)
            named = {f.object for f in db.findings(group="profile") if f.is_error}
        if obj not in named:
            unnoticed.append((obj, sorted(named)))
    assert not unnoticed
    assert count > 100  # every index, constraint, NOT NULL column and trigger of the model
    assert db.findings() == []  # every removal was rolled back
