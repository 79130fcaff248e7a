"""`agentddl verify`: a live schema's invariants, read from pg_catalog; and `agentddl
apply`: a profile installed two ways (schema.sql, Alembic), proven to land the same.

Library use: `build_report(run(VerifyRequest(dsn=..., profile=...)))`;
`build_apply_report(run_apply(ApplyRequest(profile=...)))`: results are plain data. The
rule functions below take an open connection and a schema name and return
`agentddl.checks.core.findings.Finding`s (e.g. `index_findings`: the shared index rules
of `agentddl.checks.catalog_rules`, which `audit` reports too).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agentddl.checks.catalog_rules.duplicate_index import DuplicateIndex
from agentddl.checks.catalog_rules.fk_without_index import FkWithoutIndex
from agentddl.checks.catalog_rules.indexes import INDEX_RULES
from agentddl.checks.catalog_rules.invalid_index import InvalidIndex
from agentddl.checks.catalog_rules.redundant_index import RedundantIndex
from agentddl.checks.catalog_rules.types import Connection, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.engine import generic_findings, make_context, run_one, run_rules

if TYPE_CHECKING:
    from agentddl.checks.verify.apply import ApplyRequest, run_apply
    from agentddl.checks.verify.report import build_apply_report, build_report
    from agentddl.checks.verify.result import ApplyResult, VerifyResult
    from agentddl.checks.verify.session import VerifyRequest, run

# Imported on first use: a result is plain data, and importing it loads neither Alembic
# nor the reporters.
_HOMES = {
    "ApplyRequest": "apply",
    "run_apply": "apply",
    "build_apply_report": "report",
    "build_report": "report",
    "ApplyResult": "result",
    "VerifyResult": "result",
    "VerifyRequest": "session",
    "run": "session",
}

__all__ = [
    "ApplyRequest",
    "ApplyResult",
    "VerifyContext",
    "VerifyRequest",
    "VerifyResult",
    "build_apply_report",
    "build_report",
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


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
