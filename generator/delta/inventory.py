"""A schema model as comparable objects: key -> definition, for every object a migration
can create, change or drop. Two models differ exactly where their inventories differ."""

from __future__ import annotations

from typing import Any

from agentddl.generator.delta.types import ABSENT, Difference, Key
from agentddl.generator.model import SchemaModel, Table
from agentddl.generator.model.blocks import ROLE_KINDS
from agentddl.generator.model.privileges import grant_statements, policies
from agentddl.generator.model.scope import Scope

# Blocks whose content other keys already describe (table storage and compression,
# grants, policies, the roles, the schema) or that run once at install (bootstrap).
_DESCRIBED = ("_storage", "_compression", "_rls")
_SKIPPED = {"grants", "roles", "schema", "partitions_bootstrap", "events_event_id_seq_owner"}


def inventory(model: SchemaModel) -> dict[Key, Any]:
    scope = Scope(model.profile)
    found: dict[Key, Any] = {("schema", "", ""): model.schema}
    found |= {("role", "", kind): model.profile.role(kind) for kind in ROLE_KINDS}
    for table in model.tables:
        found |= _table(scope, table)
    found |= {("grant", "", g): True for g in grant_statements(scope, model.tables)}
    for block in (*model.before, *model.after):
        found |= _block(block.name, block.sql)
    return found


def _table(scope: Scope, table: Table) -> dict[Key, Any]:
    t = table.name
    part = table.partitioning
    found: dict[Key, Any] = {
        ("table", t, ""): part.column if part else None,
        ("table_comment", t, ""): table.comment,
        ("storage", t, ""): table.storage,
        ("pk", t, table.pk_name): table.primary_key,
        ("partitioning", t, ""): (part.granularity, part.retention_seconds, part.runway) if part else None,
    }
    for c in table.columns:
        found[("column", t, c.name)] = (c.type, c.nullable)
        found[("default", t, c.name)] = "identity" if c.identity else c.default
        found[("compression", t, c.name)] = c.compression
        found[("column_comment", t, c.name)] = c.comment
    found |= {("check", t, c.name): c.expression for c in table.checks}
    found |= {
        ("fk", t, f.name): (f.columns, f.ref_table, f.ref_columns, f.on_delete) for f in table.foreign_keys
    }
    found |= {("unique", t, u.name): u.columns for u in table.uniques}
    found |= {("index", t, i.name): _index_definition(i) for i in table.indexes}
    rules = policies(scope, table)
    found[("rls", t, "")] = bool(rules)
    found |= {("policy", t, p.name): (p.roles, p.using, p.check, p.command) for p in rules}
    return found


def _index_definition(index: Any) -> tuple[Any, ...]:
    return (index.columns, index.unique, index.where, index.method, index.nulls_not_distinct)


def _block(name: str, sql: str) -> dict[Key, Any]:
    if name in _SKIPPED or name.endswith(_DESCRIBED):
        return {}
    if name == "events_event_id_seq":
        return {("sequence", "", name): True}
    head = sql.lstrip().split("\n", 1)[0]
    if head.startswith("CREATE FUNCTION"):
        return {("function", "", name): sql}
    if head.startswith("CREATE TRIGGER"):
        return {("trigger", "", name): sql}
    return {("block", "", name): sql}


def differences(old: dict[Key, Any], new: dict[Key, Any]) -> tuple[Difference, ...]:
    """Every key whose definition differs, in a stable order."""
    keys = sorted(old.keys() | new.keys())
    return tuple(
        Difference(key, old.get(key, ABSENT), new.get(key, ABSENT))
        for key in keys
        if old.get(key, ABSENT) != new.get(key, ABSENT)
    )
