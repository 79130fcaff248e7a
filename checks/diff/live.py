"""The delta from a live database's catalog to a profile (`diff --dsn`, `generate --dsn`).

The database is read with the one catalog snapshot and compared (`db.catalog.diff`) with
a fresh install of the profile in a scratch database (on --server, default the --dsn's
server). Every object that differs becomes a difference the generator's step builders
turn into online steps, from the profile's own model; privileges become the profile's
grants again plus the revokes of what it does not grant. Read-only on the user's database.
"""

from __future__ import annotations

from typing import Any

from agentddl.checks.db.catalog import Difference as CatalogDifference
from agentddl.checks.db.catalog import Snapshot, diff, read_snapshot
from agentddl.checks.db.connect import connect, describe_dsn
from agentddl.checks.db.declared import model_roles
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.provision import scratch_server
from agentddl.generator.delta import Delta
from agentddl.generator.delta.compute import steps_for
from agentddl.generator.delta.inventory import inventory
from agentddl.generator.delta.types import ABSENT, Difference, Key, Step
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.model.blocks import quote, roles
from agentddl.generator.model.privileges import grant_statements
from agentddl.generator.model.scope import Scope
from agentddl.generator.profile import Profile

LIVE = ("the live catalog -> the profile",)  # a live delta's one "change"
_CONSTRAINT_KINDS = {"c": "check", "f": "fk", "p": "pk", "u": "unique"}
_COMPRESSION = {"l": "lz4", "p": "pglz", "": None}
# Partitions carry dates (maintenance makes them as time passes); views and sequences of
# the user's own are theirs; sequences follow their column (identity or default).
_COMPARED = ("indexes", "constraints", "columns", "triggers", "policies", "tables", "functions",
             "column_storage", "comments", "privileges")  # fmt: skip


def live_delta(profile: Profile, dsn: str, server: str | None) -> Delta:
    model = derive(profile)
    actual = _read(dsn, model)
    if not actual.names("tables"):
        raise AgentDDLError(
            f"{describe_dsn(dsn)}: schema {model.schema!r} has no tables; "
            "install it first (`alembic upgrade head`)"
        )
    with (
        scratch_server(server, dsn, None, prefer=profile.engine.version) as found,
        found.scratch_database() as ref,
    ):
        install_profile(ref, model, found.version)
        wanted = _read(ref, model)
    differences = diff(wanted, actual, _COMPARED)
    objects = [d for d in differences if d.kind != "privileges"]
    delta = steps_for(model, model, model_differences(objects, actual, wanted, model))
    grants = grant_fixes([d for d in differences if d.kind == "privileges"], model)
    steps = [s for s in grants if s.phase == "prepare"] + list(delta.steps)
    steps += [s for s in grants if s.phase == "contract"]
    return Delta(LIVE, tuple(steps), refusals=delta.refusals)


def _read(dsn: str, model: SchemaModel) -> Snapshot:
    with connect(dsn, read_only=True) as connection:
        return read_snapshot(connection, model.schema, model_roles(model))


def model_differences(
    found: list[CatalogDifference], actual: Snapshot, wanted: Snapshot, model: SchemaModel
) -> tuple[Difference, ...]:
    """The catalog's differences as the model's keys: old = what the database holds
    (ABSENT when missing), new = the model's definition (ABSENT when not declared).
    Objects the profile does not declare are the user's own (left alone) unless they are
    indexes, constraints or policies on its tables (dropped: the profile is the truth)."""
    declared = inventory(model)
    keys: dict[Key, Any] = {}
    for difference in found:
        for key, old in _keys(difference, actual, wanted).items():
            if key in declared or key[0] in ("index", "check", "fk", "unique", "policy"):
                keys[key] = old
    return tuple(Difference(key, old, declared.get(key, ABSENT)) for key, old in sorted(keys.items()))


def _keys(difference: CatalogDifference, actual: Snapshot, wanted: Snapshot) -> dict[Key, Any]:
    kind, name, table = difference.kind, difference.name, difference.table
    old: Any = ABSENT if difference.what == "missing" else dict(actual.get(kind, name) or ())
    if kind == "indexes":
        return {("index", table, name): old}
    if kind == "constraints":
        shape = dict(actual.get(kind, name) or wanted.get(kind, name) or ())
        return {(_CONSTRAINT_KINDS.get(shape.get("kind", ""), "constraint"), table, name): old}
    if kind in ("triggers", "policies"):
        return {
            (kind[:-1] if kind == "triggers" else "policy", "" if kind == "triggers" else table, name): old
        }
    if kind == "functions":
        return {("function", "", name.split("(")[0]): old}
    if kind == "tables":
        return _table_keys(difference, old)
    if kind in ("columns", "column_storage"):
        return _column_keys(difference, old)
    if kind == "comments" and not name.startswith("FUNCTION "):
        column = name.partition(".")[2]
        comment = ABSENT if old is ABSENT else old.get("comment")
        return {("column_comment", table, column) if column else ("table_comment", table, ""): comment}
    return {}


def _table_keys(difference: CatalogDifference, old: Any) -> dict[Key, Any]:
    table = difference.table
    if difference.what != "differs":
        return {("table", table, ""): old}
    keys: dict[Key, Any] = {}
    for change in difference.changes:
        if change.field == "row_security":
            keys[("rls", table, "")] = change.actual
        elif change.field == "options":
            keys[("storage", table, "")] = tuple(tuple(o.split("=", 1)) for o in change.actual or ())
        else:
            keys[("table", table, "")] = old
    return keys


def _column_keys(difference: CatalogDifference, old: Any) -> dict[Key, Any]:
    table, column = difference.name.split(".", 1)
    if difference.what != "differs":
        return {("column", table, column): old} if difference.kind == "columns" else {}
    keys: dict[Key, Any] = {}
    for change in difference.changes:
        if change.field in ("default", "identity"):
            keys[("default", table, column)] = (
                "identity" if old.get("identity") else old.get("default") or None
            )
        elif change.field == "compression":
            keys[("compression", table, column)] = _COMPRESSION.get(change.actual, change.actual)
        else:
            keys[("column", table, column)] = old
    return keys


def grant_fixes(found: list[CatalogDifference], model: SchemaModel) -> list[Step]:
    """Privileges the profile grants that are missing (its grants, run again: each is
    idempotent), and privileges it does not grant (revoked, per role and privilege)."""
    missing = any(d.what == "missing" or _lacking(d) for d in found)
    revokes = [_revoke(d, model) for d in found if _extra(d)]
    steps = []
    scope = Scope(model.profile)
    if missing:
        statements = (roles(scope).sql, *grant_statements(scope, model.tables))
        steps.append(
            Step(
                "prepare",
                "grant the profile's privileges",
                statements,
                "plain",
                None,
                (),
                "catalog",
                "revoke them",
            )
        )
    if revokes:
        steps.append(
            Step(
                "contract",
                "revoke privileges the profile does not grant",
                tuple(revokes),
                "plain",
                None,
                (),
                "catalog",
                "grant them again",
            )
        )
    return steps


def _lacking(difference: CatalogDifference) -> set[str]:
    if not difference.changes:
        return set()
    change = difference.changes[0]
    return set(change.expected or ()) - set(change.actual or ())


def _extra(difference: CatalogDifference) -> set[str]:
    if difference.what == "unexpected" or not difference.changes:
        return set()
    change = difference.changes[0]
    return set(change.actual or ()) - set(change.expected or ())


def _revoke(difference: CatalogDifference, model: SchemaModel) -> str:
    role, _, target = difference.name.partition(" on ")
    schema = quote(model.schema)
    if target == "SCHEMA":
        on = f"SCHEMA {schema}"
    elif target.startswith(("SEQUENCE ", "FUNCTION ")):
        what, _, name = target.partition(" ")
        on = f"{what} {schema}.{name}"
    else:
        on = f"{schema}.{target}"
    return f"REVOKE {', '.join(sorted(_extra(difference)))} ON {on} FROM {quote(role)}"
