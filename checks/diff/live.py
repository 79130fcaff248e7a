"""The delta from a live database's catalog to a profile (`diff --dsn`, `generate --dsn`).

The database's catalog is compared with a fresh install of the profile (a scratch
database on --server, default the --dsn's server), object by object; every object that
differs becomes a difference the generator's step builders turn into online steps, from
the profile's own model. Read-only on the user's database.
"""

from __future__ import annotations

import re
from typing import Any

from agentddl.checks.db.catalog import snapshot
from agentddl.checks.db.connect import connect, describe_dsn
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.provision import scratch_server
from agentddl.generator.delta import Delta
from agentddl.generator.delta.compute import steps_for
from agentddl.generator.delta.inventory import inventory
from agentddl.generator.delta.types import ABSENT, Difference, Key, Step
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.model.blocks import roles
from agentddl.generator.model.privileges import grant_statements
from agentddl.generator.model.scope import Scope
from agentddl.generator.profile import Profile

Snapshot = dict[str, dict[str, tuple[Any, ...]]]
LIVE = ("the live catalog -> the profile",)  # a live delta's one "change"
_CONSTRAINT_KINDS = {"c": "check", "f": "fk", "p": "pk", "u": "unique"}
_COMPRESSION = {"l": "lz4", "p": "pglz", "": None}
_PRIVILEGES = {
    "r": "SELECT", "a": "INSERT", "w": "UPDATE", "d": "DELETE", "D": "TRUNCATE",
    "x": "REFERENCES", "t": "TRIGGER", "m": "MAINTAIN", "U": "USAGE",
}  # fmt: skip


def live_delta(profile: Profile, dsn: str, server: str | None) -> Delta:
    model = derive(profile)
    actual = snapshot(dsn, model.schema)
    if not actual["relations"]:
        raise AgentDDLError(
            f"{describe_dsn(dsn)} has no schema {model.schema!r}: install it first (`alembic upgrade head`)"
        )
    with (
        scratch_server(server, dsn, None, prefer=profile.engine.version) as found,
        found.scratch_database() as ref,
    ):
        with connect(ref) as connection:
            install_schema(connection, model)
        wanted = snapshot(ref, model.schema)
    delta = steps_for(model, model, catalog_differences(actual, wanted, model))
    grants = grant_fixes(actual, wanted, model)
    steps = [s for s in grants if s.phase == "prepare"] + list(delta.steps)
    steps += [s for s in grants if s.phase == "contract"]
    return Delta(LIVE, tuple(steps), refusals=delta.refusals)


def catalog_differences(actual: Snapshot, wanted: Snapshot, model: SchemaModel) -> tuple[Difference, ...]:
    """The objects whose catalog entries differ, as the model's keys: old = the database's
    entry (ABSENT when missing), new = the model's definition (ABSENT when not declared)."""
    declared = inventory(model)
    found: dict[Key, Any] = {}
    for kind, mapper in _MAPPERS.items():
        for name in sorted(actual[kind].keys() | wanted[kind].keys()):
            if actual[kind].get(name) != wanted[kind].get(name):
                found.update(mapper(name, actual[kind].get(name), wanted[kind].get(name), model))
    # functions and triggers the profile does not declare are the user's own: left alone
    kept = {k: v for k, v in found.items() if k in declared or k[0] not in ("function", "trigger")}
    return tuple(Difference(key, old, declared.get(key, ABSENT)) for key, old in sorted(kept.items()))


def _index(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    table = (old or new)[0]
    return {("index", table, name): old if old is not None else ABSENT}


def _constraint(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    table, contype = (old or new)[0], (old or new)[1]
    kind = _CONSTRAINT_KINDS.get(contype, "constraint")
    return {(kind, table, name): old if old is not None else ABSENT}


def _function(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    return {("function", "", name.split("|")[0]): old if old is not None else ABSENT}


def _trigger(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    return {("trigger", "", name): old if old is not None else ABSENT}


def _policy(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    table = (old or new)[0]
    return {("policy", table, name): old if old is not None else ABSENT}


def _relation(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    tables = {t.name for t in model.tables}
    if name not in tables:
        return {} if _partition(name, model) or old is None or old[0] == "S" else {("table", name, ""): old}
    if old is None:
        return {("table", name, ""): ABSENT}
    found: dict[Key, Any] = {}
    if old[2] != new[2]:
        found[("storage", name, "")] = tuple(tuple(o.split("=", 1)) for o in old[2].split(",") if o)
    if old[3] != new[3]:
        found[("table_comment", name, "")] = old[3]
    if old[5] != new[5]:
        found[("rls", name, "")] = old[5]
    return found


def _column(name: str, old: Any, new: Any, model: SchemaModel) -> dict[Key, Any]:
    table, column = name.split(".", 1)
    if old is None or new is None:
        return {("column", table, column): old if old is not None else ABSENT}
    found: dict[Key, Any] = {}
    if old[:2] != new[:2]:
        found[("column", table, column)] = old[:2]
    if old[2:4] != new[2:4]:
        found[("default", table, column)] = "identity" if old[3] else (old[2] or None)
    if old[4] != new[4]:
        found[("compression", table, column)] = _COMPRESSION.get(old[4], old[4])
    if old[5] != new[5]:
        found[("column_comment", table, column)] = old[5]
    return found


def _partition(name: str, model: SchemaModel) -> bool:
    return any(
        t.partitioning and re.fullmatch(rf"{t.name}_p\w+|template_\w*{t.name}", name) for t in model.tables
    )


_MAPPERS = {
    "indexes": _index,
    "constraints": _constraint,
    "functions": _function,
    "triggers": _trigger,
    "policies": _policy,
    "relations": _relation,
    "columns": _column,
}


def grant_fixes(actual: Snapshot, wanted: Snapshot, model: SchemaModel) -> list[Step]:
    """Privileges the profile grants that are missing (its grants, run again: each is
    idempotent), and privileges it does not grant (revoked, per role and privilege)."""
    missing, extra = False, []
    for name, row in sorted(wanted["relations"].items()):
        have, want = _acl(actual["relations"].get(name)), _acl(row)
        if not have and not actual["relations"].get(name):
            continue  # the relation itself is missing: refused elsewhere
        missing |= any(set(p) - set(have.get(role, "")) for role, p in want.items())
        for role, privileges in sorted(have.items()):
            gone = sorted(set(privileges) - set(want.get(role, "")))
            if gone:
                what = ", ".join(_PRIVILEGES.get(p, p) for p in gone)
                extra.append(f"REVOKE {what} ON {model.schema}.{name} FROM {role or 'PUBLIC'}")
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
                "revoke them again",
            )
        )
    if extra:
        steps.append(
            Step(
                "contract",
                "revoke privileges the profile does not grant",
                tuple(extra),
                "plain",
                None,
                (),
                "catalog",
                "grant them again",
            )
        )
    return steps


def _acl(row: tuple[Any, ...] | None) -> dict[str, str]:
    """grantee -> privilege letters, the owner's own entry left out (who owns the tables
    depends on who installed them, not on the profile)."""
    found: dict[str, str] = {}
    for item in row[4].split(",") if row and row[4] else []:
        grantee, _, rest = item.partition("=")
        privileges, _, grantor = rest.partition("/")
        if grantee != grantor:
            found[grantee] = found.get(grantee, "") + privileges.replace("*", "")
    return found
