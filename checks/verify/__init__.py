"""`agentddl verify`: a live schema's invariants, read from pg_catalog; and `agentddl
apply`: a profile installed two ways (schema.sql, Alembic), proven to land the same.

Library use: `run(VerifyRequest(dsn=..., profile=...)).report()`; `run_apply(ApplyRequest(
profile=...)).report()`. The rule functions below take an open connection and a schema
name and return `agentddl.checks.core.findings.Finding`s (e.g. `index_findings`: the
shared index rules of `agentddl.checks.catalog_rules`, which `audit` reports too).
"""

from __future__ import annotations

from agentddl.checks.catalog_rules.duplicate_index import DuplicateIndex
from agentddl.checks.catalog_rules.fk_without_index import FkWithoutIndex
from agentddl.checks.catalog_rules.indexes import INDEX_RULES
from agentddl.checks.catalog_rules.invalid_index import InvalidIndex
from agentddl.checks.catalog_rules.redundant_index import RedundantIndex
from agentddl.checks.catalog_rules.types import Connection, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.apply import ApplyRequest, ApplyResult, run_apply
from agentddl.checks.verify.engine import generic_findings, make_context, run_one, run_rules
from agentddl.checks.verify.session import VerifyRequest, VerifyResult, run

__all__ = [
    "ApplyRequest",
    "ApplyResult",
    "VerifyContext",
    "VerifyRequest",
    "VerifyResult",
    "duplicate_indexes",
    "fk_without_index",
    "generic_findings",
    "index_findings",
    "invalid_indexes",
    "make_context",
    "redundant_indexes",
    "run",
    "run_apply",
    "run_rules",
]


def fk_without_index(connection: Connection, schema: str) -> list[Finding]:
    """ADV101: foreign keys no valid index leads with."""
    return run_one(FkWithoutIndex, connection, schema)


def duplicate_indexes(connection: Connection, schema: str) -> list[Finding]:
    """ADV102: indexes with another's exact definition."""
    return run_one(DuplicateIndex, connection, schema)


def redundant_indexes(connection: Connection, schema: str) -> list[Finding]:
    """ADV103: non-unique B-tree indexes whose keys lead a wider one."""
    return run_one(RedundantIndex, connection, schema)


def invalid_indexes(connection: Connection, schema: str) -> list[Finding]:
    """ADV104: indexes with indisvalid = false."""
    return run_one(InvalidIndex, connection, schema)


def index_findings(connection: Connection, schema: str) -> list[Finding]:
    """ADV101-ADV104 together, in one context: the index catalog is read once, not four times."""
    return run_rules(connection, make_context(connection, [schema]), INDEX_RULES)
