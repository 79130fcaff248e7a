"""The index rules (ADV101-ADV104) on one schema, in one context: the index catalog is
read once, not four times. `agentddl verify` runs them among its generic rules;
`agentddl audit` adds their findings to its own."""

from __future__ import annotations

from agentddl.checks.catalog_rules.duplicate_index import DuplicateIndex
from agentddl.checks.catalog_rules.fk_without_index import FkWithoutIndex
from agentddl.checks.catalog_rules.invalid_index import InvalidIndex
from agentddl.checks.catalog_rules.redundant_index import RedundantIndex
from agentddl.checks.catalog_rules.types import Connection, Rule, VerifyContext, server_major
from agentddl.checks.core.findings import Finding, sorted_findings

INDEX_RULES: tuple[type[Rule], ...] = (FkWithoutIndex, DuplicateIndex, RedundantIndex, InvalidIndex)


def index_findings(connection: Connection, schema: str) -> list[Finding]:
    """ADV101-ADV104 on `schema`, errors first."""
    return run_on_schema(connection, schema, INDEX_RULES)


def run_on_schema(connection: Connection, schema: str, rules: tuple[type[Rule], ...]) -> list[Finding]:
    """Findings of `rules` on one schema of `connection`'s database, errors first."""
    version = server_major(connection)
    context = VerifyContext((schema,), version, version)
    return sorted_findings(f for rule in rules for f in rule().check(connection, context))
