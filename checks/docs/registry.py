"""Every rule of every family, in one place: the docs generator and anything that needs
the whole catalogue of codes read it from here."""

from __future__ import annotations

from functools import cache

from agentddl.checks.audit.rules import all_rules as audit_rules
from agentddl.checks.citus.rules import all_rules as citus_rules
from agentddl.checks.core.rules import Rule
from agentddl.checks.diff.rules import all_rules as diff_rules
from agentddl.checks.lint.rules import all_rules as lint_rules
from agentddl.checks.prove.rules import all_rules as prove_rules
from agentddl.checks.trace.rules import all_rules as trace_rules
from agentddl.checks.verify.rules import all_rules as verify_rules

FAMILY_TITLES = {
    "lint": "Lint (`agentddl lint`): a migration's SQL, statically",
    "verify": "Verify (`agentddl verify`): a live schema's catalog",
    "trace": "Trace (`agentddl trace`): what a migration really did on a server",
    "audit": "Audit (`agentddl audit`): every access path served by an index",
    "prove": "Prove (`agentddl prove`): the guarantees under concurrency and crashes",
    "diff": "Diff (`agentddl diff`, `agentddl generate`): a profile change made online, or refused",
    "citus": "Citus (`agentddl verify --citus`): a schema and its queries against Citus's rules, statically",
}


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class of every family, by code."""
    found: list[type[Rule]] = [
        *lint_rules(),
        *verify_rules(),
        *trace_rules(),
        *audit_rules(),
        *prove_rules(),
        *diff_rules(),
        *citus_rules(),
    ]
    return tuple(sorted(found, key=lambda rule: rule.code))


def by_code() -> dict[str, type[Rule]]:
    return {rule.code: rule for rule in all_rules()}
