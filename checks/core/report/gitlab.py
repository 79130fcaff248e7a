"""GitLab Code Quality: a JSON array of issues, one per finding, for a merge request's
code quality widget (`artifacts: reports: codequality:` in .gitlab-ci.yml).

Each issue has GitLab's required keys: `description` (code, name, message and fix),
`check_name` (the rule's code), `fingerprint`, `severity` and `location.path` with
`location.lines.begin`. A finding about a database object rather than a file (verify,
audit, prove) is placed at the object's name, line 1. The fingerprint is a SHA-256 of the
code, place, line and message, so the same finding keeps its fingerprint from one run to
the next (GitLab compares them between the branch and its target); a second finding
identical in all four gets its ordinal in the hash, so no two issues of a report share one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any, TextIO

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report.model import Report

SEVERITY = {"error": "critical", "warning": "major", "info": "info"}


def render(report: Report, out: TextIO) -> None:
    json.dump(issues(report), out, indent=2, ensure_ascii=False)
    out.write("\n")


def issues(report: Report) -> list[dict[str, Any]]:
    """The Code Quality report as a list of dicts, in the findings' order."""
    seen: Counter[tuple[str, str, int, str]] = Counter()
    result = []
    for finding in report.ordered:
        path = finding.file if finding.file is not None else finding.object or report.tool
        identity = (finding.code, path, finding.line or 1, finding.message)
        seen[identity] += 1
        result.append(_issue(finding, path, _fingerprint(identity, seen[identity])))
    return result


def _issue(finding: Finding, path: str, fingerprint: str) -> dict[str, Any]:
    return {
        "description": f"{finding.code} {finding.name}: {finding.message} fix: {finding.fix}",
        "check_name": finding.code,
        "fingerprint": fingerprint,
        "severity": SEVERITY[finding.severity],
        "location": {"path": path, "lines": {"begin": finding.line or 1}},
    }


def _fingerprint(identity: tuple[str, str, int, str], ordinal: int) -> str:
    parts = [*map(str, identity), *([str(ordinal)] if ordinal > 1 else [])]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()
