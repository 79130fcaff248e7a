"""What every step builder reads: the schema as it is, the schema as it must become, and
the differences between them."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentddl.generator.delta.types import Difference, Key, Refusal, Step
from agentddl.generator.model import SchemaModel
from agentddl.generator.model.names import quote

TEMP_SUFFIX = "_new"  # a replacement is built beside the old object under this suffix


@dataclass(frozen=True)
class Context:
    old: SchemaModel
    new: SchemaModel
    differences: tuple[Difference, ...]

    @property
    def schema(self) -> str:
        """The schema name, quoted where needed (profiles allow only plain names)."""
        return quote(self.new.schema)

    def rel(self, table: str) -> str:
        return f"{self.schema}.{table}"

    def of(self, *kinds: str) -> list[Difference]:
        return [d for d in self.differences if d.key[0] in kinds]

    def partitioned(self, table: str) -> bool:
        return any(t.name == table and t.partitioning for t in (*self.new.tables, *self.old.tables))


def temp_name(name: str) -> str:
    return f"{name}{TEMP_SUFFIX}"


@dataclass
class Outcome:
    """What one builder made of the differences it handles."""

    steps: list[Step] = field(default_factory=list)
    handled: set[Key] = field(default_factory=set)
    refusals: list[Refusal] = field(default_factory=list)

    def take(self, *differences: Difference) -> None:
        self.handled.update(d.key for d in differences)

    def merge(self, other: Outcome) -> None:
        self.steps += other.steps
        self.handled |= other.handled
        self.refusals += other.refusals
