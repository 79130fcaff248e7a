"""What a verify rule is and what it reads: one catalog query, findings from its rows.

A rule is a class with a stable `code` (ADV1xx), a kebab-case `name`, a default
`severity`, a docstring with the sections of `checks.verify.docs.SECTIONS`, and a
`query` run with `context.params` (`%(schemas)s`: the schemas verified). Rules that
need more than one query (or a reference database) override `check`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import psycopg
from psycopg.rows import dict_row

from agentddl.checks.core.findings import Finding, Severity
from agentddl.generator.model import SchemaModel

if TYPE_CHECKING:
    from agentddl.checks.verify.reference import Reference

Group = Literal["generic", "profile"]
Row = dict[str, Any]
Connection = psycopg.Connection[Any]


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


class Rule:
    """Base class: subclasses set the class attributes and `query`, and yield findings."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    group: ClassVar[Group]
    query: ClassVar[str] = ""

    def applies(self, context: VerifyContext) -> bool:
        """Whether the rule has anything to prove here (profile rules need a model)."""
        return self.group == "generic" or context.model is not None

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        yield from self.findings(fetch_once(connection, context, self.query), context)

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        raise NotImplementedError

    def finding(self, obj: str, message: str, fix: str, severity: Severity | None = None) -> Finding:
        return Finding(self.code, self.name, severity or self.severity, obj, message, fix)


def fetch(connection: Connection, query: str, params: dict[str, Any] | None = None) -> list[Row]:
    """Rows of a catalog query as dicts."""
    with connection.cursor(row_factory=dict_row) as cursor:
        return list(cursor.execute(query.encode(), params or {}).fetchall())


def fetch_once(connection: Connection, context: VerifyContext, query: str) -> list[Row]:
    """Rows of `query` with `context.params`, read once per run: several rules read the
    same catalog query (four read the indexes)."""
    key = f"rows:{query}"
    if key not in context.cache:
        context.cache[key] = fetch(connection, query, context.params)
    rows: list[Row] = context.cache[key]
    return rows


@contextmanager
def session_settings(connection: Connection, settings: dict[str, str]) -> Iterator[None]:
    """Run a block with session settings (e.g. TimeZone), restoring the caller's after."""
    read = "SELECT current_setting(%(n)s) AS v"
    previous = {name: fetch(connection, read, {"n": name})[0]["v"] for name in settings}
    for name, value in settings.items():
        connection.execute("SELECT set_config(%s, %s, false)", (name, value))
    try:
        yield
    finally:
        for name, value in previous.items():
            connection.execute("SELECT set_config(%s, %s, false)", (name, value))
