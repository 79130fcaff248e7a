"""Helpers of the profile rules: the live schema's snapshot and its diff with the
reference (each read once per run), and the model's reasons for each declared object."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from agentddl.checks.catalog_rules.types import Connection, Reference, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.catalog import Change, Difference, Snapshot, diff, read_snapshot
from agentddl.checks.db.declared import model_roles
from agentddl.generator.model import SchemaModel


def live_snapshot(connection: Connection, context: VerifyContext) -> Snapshot:
    """The verified schema's snapshot, read once per run."""
    if "snapshot" not in context.cache:
        assert context.model is not None
        roles = model_roles(context.model)
        context.cache["snapshot"] = read_snapshot(connection, context.schemas[0], roles)
    snapshot: Snapshot = context.cache["snapshot"]
    return snapshot


def reference_of(context: VerifyContext) -> Reference:
    if context.reference is None:
        raise TypeError("profile rules need a Reference in the context (verify --profile builds one)")
    return context.reference


def differences(connection: Connection, context: VerifyContext) -> list[Difference]:
    """The live schema against the reference, once per run."""
    if "differences" not in context.cache:
        declared = reference_of(context).snapshot
        context.cache["differences"] = diff(declared, live_snapshot(connection, context))
    found: list[Difference] = context.cache["differences"]
    return found


def reasons(model: SchemaModel) -> dict[str, str]:
    """Why each declared index and constraint exists, by name (from the model)."""
    why: dict[str, str] = {}
    for table in model.tables:
        why[table.pk_name] = f"primary key of {table.name}"
        for check in table.checks:
            why[check.name] = check.why
        for fk in table.foreign_keys:
            why[fk.name] = fk.why
        for unique in table.uniques:
            why[unique.name] = unique.why
        for index in table.indexes:
            serves = f"; serves {', '.join(index.serves)}" if index.serves else ""
            why[index.name] = index.why + serves
    return why


@dataclass(frozen=True)
class Mismatch:
    name: str
    table: str
    problem: str  # "missing" | "differs from the profile: ..." | "invalid" | "not validated"


def mismatches(kind: str, found: list[Difference], declared: Snapshot, live: Snapshot) -> Iterator[Mismatch]:
    """Every declared object of `kind` that the live schema lacks, defines otherwise, or
    holds but not validly (on tables that exist: a missing table is one finding)."""
    absent = set(missing_tables(found))
    for difference in found:
        if difference.kind != kind or difference.table in absent:
            continue
        if difference.what == "missing":
            yield Mismatch(difference.name, difference.table, _missing(kind, difference.name, declared, live))
        elif difference.what == "differs":
            changes = "; ".join(described(change) for change in difference.changes)
            yield Mismatch(difference.name, difference.table, f"differs from the profile: {changes}")
        elif difference.what == "validity" and not difference.changes[0].actual:
            state = "invalid" if kind == "indexes" else "not validated"
            yield Mismatch(difference.name, difference.table, state)


def missing_tables(found: list[Difference]) -> list[str]:
    """Declared tables the live schema doesn't have."""
    return [d.name for d in found if d.kind == "tables" and d.what == "missing"]


def _missing(kind: str, name: str, declared: Snapshot, live: Snapshot) -> str:
    shape = declared.get(kind, name)
    twin = next((other for other, s in live.objects.get(kind, {}).items() if s == shape), None)
    return f"missing (the same definition exists as {twin})" if twin else "missing"


def described(change: Change) -> str:
    """A difference from the profile, `field found (declared: value)`."""
    found, declared = show_value(change.actual), show_value(change.expected)
    return f"{change.field.replace('_', ' ')} {found} (declared: {declared})"


def show_value(value: Any) -> str:
    """A field's value as findings print it: booleans lowercase, lists in parentheses,
    a long text (a function body) by its length."""
    if isinstance(value, str) and len(value) > 200:  # a function body: say that, not what
        return f"<{len(value)} characters>"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return repr(value) if isinstance(value, str) else str(value)


class DeclaredObjectsRule(Rule):
    """Base of the rules that compare one kind of declared object with the live schema."""

    kind: ClassVar[str]  # a snapshot kind: indexes, constraints, columns, triggers, functions
    noun: ClassVar[str]
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        assert context.model is not None
        declared = reference_of(context).snapshot
        live = live_snapshot(connection, context)
        why = reasons(context.model)
        schema = context.schemas[0]
        for mismatch in mismatches(self.kind, differences(connection, context), declared, live):
            reason = f" (declared for: {why[mismatch.name]})" if mismatch.name in why else ""
            yield self.finding(
                f"{self.noun} {schema}.{mismatch.name}: {mismatch.problem}{reason}.",
                self.fix(mismatch, declared, schema),
                object=f"{schema}.{mismatch.name}",
            )

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        return f"restore it as the profile declares it: {declared.ddl[self.kind].get(mismatch.name, '')}"
