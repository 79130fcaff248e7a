"""What a Citus rule reads: the schema's layout and the named queries, frozen; a rule
yields findings located at a file position (queries, constraints) and a database object."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentddl.checks.citus.blocks import NamedQuery
from agentddl.checks.citus.layout import Layout
from agentddl.checks.citus.sources import Source
from agentddl.checks.core import rules
from agentddl.checks.core.findings import Finding


@dataclass(frozen=True)
class QueryFile:
    source: Source
    queries: tuple[NamedQuery, ...]


@dataclass(frozen=True)
class CitusContext:
    layout: Layout
    query_files: tuple[QueryFile, ...]

    @property
    def columns(self) -> dict[str, str]:
        """Distributed table -> its distribution column."""
        return {t: p.column for t, p in self.layout.placements.items() if p.column}


class Rule(rules.Rule):
    """Base class of the Citus rules (family citus, codes ADS)."""

    family = "citus"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        raise NotImplementedError
