"""Helpers of the profile rules: the live schema's shapes (read once per run) and the
model's reasons for each declared object."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.reference import Reference, model_roles
from agentddl.checks.verify.shapes import Shape, Shapes, differences, read_shapes
from agentddl.checks.verify.types import Connection, Rule, VerifyContext
from agentddl.generator.model import SchemaModel


def live_shapes(connection: Connection, context: VerifyContext) -> Shapes:
    """The verified schema's shapes, read once per run."""
    if "shapes" not in context.cache:
        assert context.model is not None
        context.cache["shapes"] = read_shapes(connection, context.schemas[0], model_roles(context.model))
    shapes: Shapes = context.cache["shapes"]
    return shapes


def reference_of(context: VerifyContext) -> Reference:
    if context.reference is None:
        raise TypeError("profile rules need a Reference in the context (verify --profile builds one)")
    return context.reference


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
    problem: str  # "missing" | "differs: ..." | "invalid" | "not validated"


def mismatches(kind: str, declared: Shapes, live: Shapes) -> Iterator[Mismatch]:
    """Every declared object of `kind` that the live schema lacks, defines otherwise, or
    holds but not validly (on tables that exist: a missing table is one finding)."""
    absent = set(missing_tables(declared, live))
    for name, shape in sorted(declared.objects.get(kind, {}).items()):
        table = declared.tables_of[kind][name]
        if table in absent:
            continue
        found = live.get(kind, name)
        if found is None:
            yield Mismatch(name, table, _missing(kind, shape, live))
        elif found != shape:
            yield Mismatch(name, table, "differs from the profile: " + "; ".join(differences(found, shape)))
        elif not live.valid[kind].get(name, True):
            yield Mismatch(name, table, "invalid" if kind == "indexes" else "not validated")


def missing_tables(declared: Shapes, live: Shapes) -> list[str]:
    """Declared tables the live schema doesn't have."""
    return sorted(set(declared.objects.get("tables", {})) - set(live.objects.get("tables", {})))


def _missing(kind: str, shape: Shape, live: Shapes) -> str:
    twin = next((other for other, s in live.objects.get(kind, {}).items() if s == shape), None)
    return f"missing (the same definition exists as {twin})" if twin else "missing"


class DeclaredObjectsRule(Rule):
    """Base of the rules that compare one kind of declared object with the live schema."""

    kind: ClassVar[str]  # a Shapes kind: indexes, constraints, columns, triggers
    noun: ClassVar[str]
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        assert context.model is not None
        declared = reference_of(context).shapes
        why = reasons(context.model)
        schema = context.schemas[0]
        for mismatch in mismatches(self.kind, declared, live_shapes(connection, context)):
            reason = f" (declared for: {why[mismatch.name]})" if mismatch.name in why else ""
            yield self.finding(
                f"{schema}.{mismatch.name}",
                f"{self.noun} {schema}.{mismatch.name}: {mismatch.problem}{reason}.",
                self.fix(mismatch, declared, schema),
            )

    def fix(self, mismatch: Mismatch, declared: Shapes, schema: str) -> str:
        return f"restore it as the profile declares it: {declared.ddl[self.kind].get(mismatch.name, '')}"
