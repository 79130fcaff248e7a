"""What a catalog rule is and what it reads: one catalog query, findings from its rows.

A rule is a `core.rules.Rule` of family "verify" (every one is verify's; audit runs the
index rules too) with a `group` (generic: any schema; profile: against a profile's model),
and a `query` run with `context.params` (`%(schemas)s`: the schemas verified). Rules that
need more than one query (or the profile's reference install) override `check`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from agentddl.checks.core import rules
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.db.rows import Connection, Row, fetch
from agentddl.generator.model import SchemaModel

Group = Literal["generic", "profile"]

__all__ = [
    "Connection",
    "Group",
    "Reference",
    "Row",
    "Rule",
    "VerifyContext",
    "fetch",
    "fetch_once",
    "server_major",
]


@dataclass(frozen=True)
class Reference:
    """What a profile's model declares, as the server itself defines it (verify --profile
    installs it in a scratch database and reads it back: verify.reference)."""

    snapshot: Snapshot
    server_version: int


@dataclass(frozen=True)
class VerifyContext:
    """Frozen facts every rule may read; built once per run."""

    schemas: tuple[str, ...]  # the schemas verified
    server_version: int  # major of the server verified
    # the oldest major the schema must work on: the profile's engine version when there is
    # one (a schema for 16 can't lean on a 17 feature even when verified on 18)
    target_version: int
    model: SchemaModel | None = None
    reference: Reference | None = field(default=None, compare=False)  # what --profile declares
    cache: dict[str, Any] = field(default_factory=dict, compare=False)  # per-run memo

    @property
    def params(self) -> dict[str, Any]:
        return {"schemas": list(self.schemas)}


class Rule(rules.Rule):
    """Base class: subclasses set the class attributes and `query`, and yield findings
    (`self.finding(message, fix, object=...)`)."""

    family = "verify"
    group: ClassVar[Group]
    query: ClassVar[str] = ""

    def applies(self, context: VerifyContext) -> bool:
        """Whether the rule has anything to prove here (profile rules need a model)."""
        return self.group == "generic" or context.model is not None

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        yield from self.findings(fetch_once(connection, context, self.query), context)

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        raise NotImplementedError


def fetch_once(connection: Connection, context: VerifyContext, query: str) -> list[Row]:
    """Rows of `query` with `context.params`, read once per run: several rules read the
    same catalog query (four read the indexes)."""
    key = f"rows:{query}"
    if key not in context.cache:
        context.cache[key] = fetch(connection, query, context.params)
    rows: list[Row] = context.cache[key]
    return rows


def server_major(connection: Connection) -> int:
    row = fetch(connection, "SELECT current_setting('server_version_num')::int AS v")[0]
    return int(row["v"]) // 10000
