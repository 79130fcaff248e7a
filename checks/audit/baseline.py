"""Regression mode for CI: store each path's plan shape and cost, compare a later run.

    {"baseline": 1, "schema_version": "1.0", "server_version": 16,
     "queries": ["queries/hot_paths.sql"],
     "paths": {"claim_run": {"node": "Index Scan using runs_claim_idx on runs",
                             "indexes": ["runs_claim_idx", ...], "cost": 34.66}}}

`queries` are the query files the workload came from, relative to the baseline's folder:
a later run (`agentddl check --baseline FILE`) plans the same workload without being told
it again.

A later run fails a path (ADA120) when it no longer uses an index its baseline plan
used, and (ADA121) when its estimated cost grew beyond `growth` times the baseline's;
both only where the path now reaches a large relation (`large_rows`, the judge's
threshold): on small relations the planner rightly flips between an index and a read
of the whole relation from one seed to the next, and a baseline taken at a small
--rows would fail CI at random. Index names are root names (a partition's index
is reported as its partitioned parent), so new partitions don't look like changes.

`schema_version` is the baseline format's version (MAJOR.MINOR; its JSON Schema is
docs/schemas/audit-baseline.schema.json). A baseline without one was written by agentddl
0.1.0 and is read as 1.0; one of another major is refused (exit 2), not misread.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentddl.checks.audit.judge import Thresholds
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.core.findings import Finding
from agentddl.checks.pg.source import SourceMap
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.output import write_files

DEFAULT_GROWTH = 2.0
BASELINE_VERSION = "1.0"


def baseline_document(result: AuditResult, folder: Path = Path(".")) -> dict[str, Any]:
    """The baseline of `result`, its query files named relative to `folder` (where it is written)."""
    files = sorted({r.path.file for r in result.paths if r.path.file is not None})
    return {
        "baseline": 1,
        "schema_version": BASELINE_VERSION,
        "server_version": result.server_version,
        "queries": [Path(os.path.relpath(Path(f).resolve(), folder.resolve())).as_posix() for f in files],
        "paths": {
            r.path.name: {
                "node": r.plan.main_node(r.path.table),
                "indexes": sorted(r.plan.indexes),
                "cost": round(r.plan.cost, 2),
            }
            for r in result.paths
            if r.plan is not None
        },
    }


def write_baseline(path: Path, result: AuditResult) -> None:
    """Written atomically (temp file + rename)."""
    text = json.dumps(baseline_document(result, path.parent), indent=2, sort_keys=True) + "\n"
    write_files({path.name: text}, path.parent if str(path.parent) else Path("."))


def read_baseline(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
        document = json.loads(text)
    except OSError as error:
        raise AgentDDLError(f"{path}: cannot read baseline: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise AgentDDLError(f"{path}: not a baseline: not UTF-8 text (byte {error.start})") from error
    except json.JSONDecodeError as error:
        raise AgentDDLError(f"{path}:{error.lineno}:{error.colno}: not a baseline: {error.msg}") from error
    if (
        not isinstance(document, dict)
        or document.get("baseline") != 1
        or not isinstance(document.get("paths"), dict)
    ):
        raise AgentDDLError(
            f'{path}:1:1: not an agentddl audit baseline (expected "baseline": 1 and "paths")'
        )
    _check_version(path, text, document.get("schema_version", BASELINE_VERSION))
    queries = document.get("queries", [])
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise AgentDDLError(f'{_at(path, text, "queries")}: "queries": expected a list of query file paths')
    for name, entry in document["paths"].items():
        if not _valid_entry(entry):
            raise AgentDDLError(
                f"{_at(path, text, name)}: path {name!r}: "
                'expected {"node": text, "indexes": [names], "cost": number}'
            )
    return document


def _at(path: Path, text: str, key: str) -> str:
    """`path:line:column` of the baseline's first `"key"` (1:1 when it is not spelled so)."""
    line, column = SourceMap(text).position(max(text.find(json.dumps(key)), 0))
    return f"{path}:{line}:{column}"


def baseline_queries(path: Path) -> tuple[Path, ...]:
    """The query files a baseline's workload came from (none in a 0.1.0 baseline or one of
    the profile's paths only), resolved from the baseline's folder."""
    return tuple(path.parent / q for q in read_baseline(path).get("queries", []))


def _check_version(path: Path, text: str, version: object) -> None:
    """A version of the major this agentddl writes (absent: 0.1.0's baselines, read as 1.0)."""
    major = BASELINE_VERSION.split(".")[0]
    if isinstance(version, str) and version.split(".")[0] == major:
        return
    raise AgentDDLError(
        f"{_at(path, text, 'schema_version')}: audit baseline schema_version {json.dumps(version)}: expected "
        f'"{major}.x" (write it again with --update-baseline)'
    )


def _valid_entry(entry: object) -> bool:
    """A path's stored plan as baseline_document writes it (compare reads these keys)."""
    if not isinstance(entry, dict):
        return False
    indexes, cost = entry.get("indexes", []), entry.get("cost", 0.0)
    return (
        isinstance(entry.get("node", ""), str)
        and isinstance(indexes, list)
        and all(isinstance(i, str) for i in indexes)
        and isinstance(cost, int | float)
        and not isinstance(cost, bool)
    )


class BaselineRule(AuditRule):
    """A verdict on a path's plan against its baseline's."""

    def check(self, result: PathResult, before: dict[str, Any], growth: float) -> Finding | None:
        """`before`: the path's stored plan (as baseline_document writes it); `result.plan` is set."""
        raise NotImplementedError


def compare(
    result: AuditResult,
    baseline: dict[str, Any],
    growth: float = DEFAULT_GROWTH,
    large_rows: float = Thresholds().large_rows,
) -> list[Finding]:
    """Every baseline rule's findings on each path that now reaches a large relation."""
    rules = rules_of(BaselineRule)
    findings: list[Finding] = []
    for r in result.paths:
        before = baseline["paths"].get(r.path.name)
        if before is not None and r.plan is not None and any(s.size >= large_rows for s in r.plan.scans):
            findings += [found for rule in rules if (found := rule.check(r, before, growth)) is not None]
    return findings
