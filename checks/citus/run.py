"""The Citus check's request, run and result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentddl.checks.citus.blocks import read_queries
from agentddl.checks.citus.layout import read_layout
from agentddl.checks.citus.rules import all_rules
from agentddl.checks.citus.sources import Source
from agentddl.checks.citus.types import CitusContext, QueryFile
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import Profile

SCHEMA, CITUS, QUERIES = "schema.sql", "citus.sql", "queries.sql"


@dataclass(frozen=True)
class CitusRequest:
    schema_sql: Source
    citus_sql: Source | None  # None: nothing distributed (every rule has nothing to check)
    queries: tuple[Source, ...] = ()
    about: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_profile(cls, profile: Profile, extra: tuple[Source, ...] = ()) -> CitusRequest:
        """The profile's generated files, rendered in memory, plus your query files."""
        from agentddl.generator.artifacts import render_artifacts

        if profile.distribution.engine != "citus":
            raise AgentDDLError(
                f"profile {profile.name!r} does not distribute (distribution.engine: none): "
                "set distribution: {engine: citus} to check it against Citus"
            )
        files = render_artifacts(profile)
        return cls(
            Source(SCHEMA, files[SCHEMA]),
            Source(CITUS, files[CITUS]),
            (Source(QUERIES, files[QUERIES]), *extra),
            {"profile": profile.name},
        )

    @classmethod
    def from_directory(cls, folder: Path, extra: tuple[Source, ...] = ()) -> CitusRequest:
        """A folder `agentddl generate` wrote (schema.sql, citus.sql, queries.sql)."""
        sources = {
            name: _read(folder / name) for name in (SCHEMA, CITUS, QUERIES) if (folder / name).exists()
        }
        if SCHEMA not in sources or CITUS not in sources:
            raise AgentDDLError(f"{folder}: expected schema.sql and citus.sql (agentddl generate with citus)")
        queries = (sources[QUERIES],) if QUERIES in sources else ()
        return cls(sources[SCHEMA], sources[CITUS], (*queries, *extra), {"folder": str(folder)})


def read_source(path: Path) -> Source:
    return _read(path)


def _read(path: Path) -> Source:
    try:
        return Source(str(path), path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDDLError(f"{path}: cannot read: {error}") from None


@dataclass(frozen=True)
class CitusResult:
    request: CitusRequest
    findings: tuple[Finding, ...]

    def report(self) -> Report:
        request = self.request
        files = [request.schema_sql, *([request.citus_sql] if request.citus_sql else []), *request.queries]
        return Report(
            tool="verify",
            findings=self.findings,
            rules=all_rules(),
            about={"check": "citus (static)", **request.about},
            sources={s.path: s.text for s in files},
        )


def run(request: CitusRequest) -> CitusResult:
    layout = read_layout(request.schema_sql, request.citus_sql)
    files = tuple(QueryFile(s, tuple(read_queries(s))) for s in request.queries)
    context = CitusContext(layout, files)
    findings = tuple(f for rule in all_rules() for f in rule().check(context))
    return CitusResult(request, findings)
