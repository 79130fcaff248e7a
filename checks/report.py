"""Reporters for live findings (verify, trace, audit): text, JSON and SARIF 2.1.0.

Live findings are about database objects, not file lines, so they have their own
reporters; the shapes follow the linter's (`checks/lint/reporters/`): the same
severity words, `message` = the consequence, `fix` = the action, SARIF with every
rule in the driver. JSON (stable keys, documented in README.md):

    {"tool": "verify", "findings": [{"code", "name", "severity", "object",
     "message", "fix"}], "summary": {"error": N, "warning": N, "info": N},
     ...extra keys the command adds (e.g. "database", "schemas")}

SARIF results carry a logical location (the object's schema-qualified name) since
there is no file.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, TextIO

from rich.console import Console
from rich.markup import escape

from agentddl.checks.findings import Finding, Severity

Format = Literal["text", "json", "sarif"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


@dataclass(frozen=True)
class RuleInfo:
    """What SARIF's driver (and docs) say about one rule."""

    code: str
    name: str
    severity: Severity
    summary: str  # one or two sentences: what the rule proves
    help_uri: str = ""  # e.g. docs/verify/fk-without-index.md


def rule_info(rule: Any, docs_base: str) -> RuleInfo:
    """RuleInfo of a rule class with `code`, `name`, `severity` and a docstring whose
    `## What it does` section (else its first paragraph) is the summary."""
    doc = inspect.cleandoc(rule.__doc__ or "")
    if "## What it does" in doc:
        body = doc.split("## What it does", 1)[1].split("##", 1)[0]
    else:
        body = doc.split("\n\n")[0]
    summary = " ".join(body.split())
    return RuleInfo(rule.code, rule.name, rule.severity, summary, f"{docs_base}/{rule.name}.md")


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by code and object: diff-friendly, the same on every run."""
    return sorted(findings, key=lambda f: (_SEVERITY_ORDER[f.severity], f.code, f.object, f.message))


def summary_counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {level: sum(1 for f in findings if f.severity == level) for level in ("error", "warning", "info")}


def render_findings(
    findings: Iterable[Finding],
    fmt: Format,
    out: TextIO,
    *,
    tool: str,
    rules: Sequence[RuleInfo] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write `findings` to `out` in `fmt`. `extra` adds top-level keys to JSON (and
    header lines to text); `rules` fill the SARIF driver."""
    ordered = sorted_findings(findings)
    if fmt == "text":
        render_text(ordered, out, tool=tool, extra=extra, rules=rules)
    elif fmt == "json":
        json.dump(json_document(ordered, tool=tool, extra=extra), out, indent=2, ensure_ascii=False)
        out.write("\n")
    elif fmt == "sarif":
        json.dump(sarif_log(ordered, tool=tool, rules=rules), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:  # pragma: no cover - typer restricts the choice
        raise ValueError(f"unknown format {fmt!r}")


def render_text(
    findings: Sequence[Finding],
    out: TextIO,
    *,
    tool: str,
    extra: Mapping[str, Any] | None = None,
    rules: Sequence[RuleInfo] = (),
) -> None:
    """One block per finding (severity, code, [name], object, message, fix, and the rule's
    docs when `rules` link them), then a summary."""
    console = Console(file=out, highlight=False, soft_wrap=True)
    docs = {rule.code: rule.help_uri for rule in rules if rule.help_uri}
    for key, value in (extra or {}).items():
        if value is None:
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        console.print(f"{escape(key)}: {escape(shown)}")
    for f in findings:
        console.print(
            f"[{_STYLE[f.severity]}]{f.severity}[/] {f.code} [bold]\\[{escape(f.name)}][/bold] "
            f"{escape(f.object)}\n  {escape(f.message)}\n  fix: {escape(f.fix)}"
            + (f"\n  docs: {escape(docs[f.code])}" if f.code in docs else "")
        )
    counts = summary_counts(findings)
    if not findings:
        console.print(f"{tool}: no findings.")
    else:
        console.print(
            f"{tool}: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info."
        )


def json_document(
    findings: Sequence[Finding], *, tool: str, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON report as a dict (keys in a stable order)."""
    document: dict[str, Any] = {"tool": tool, **(extra or {})}
    document["findings"] = [finding_dict(f) for f in findings]
    document["summary"] = summary_counts(findings)
    return document


def finding_dict(finding: Finding) -> dict[str, str]:
    """One finding as JSON: code, name, severity, object, message, fix."""
    return asdict(finding)


def sarif_log(findings: Sequence[Finding], *, tool: str, rules: Sequence[RuleInfo] = ()) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run; `rules` (plus any code only seen in findings) in the driver."""
    known = {r.code for r in rules}
    extra_rules = {
        f.code: RuleInfo(f.code, f.name, f.severity, f.name) for f in findings if f.code not in known
    }
    all_rules = [*rules, *extra_rules.values()]
    index = {r.code: i for i, r in enumerate(all_rules)}
    driver = {
        "name": f"agentddl {tool}",
        "informationUri": "https://github.com/agentddl/agentddl",
        "rules": [_sarif_rule(r) for r in all_rules],
    }
    results = [_sarif_result(f, index[f.code]) for f in findings]
    run = {"tool": {"driver": driver}, "results": results}
    return {"version": "2.1.0", "$schema": SARIF_SCHEMA, "runs": [run]}


def _sarif_rule(rule: RuleInfo) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.name},
        "fullDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
    }
    if rule.help_uri:
        entry["helpUri"] = rule.help_uri
    return entry


def _sarif_result(finding: Finding, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVEL[finding.severity],
        "message": {"text": f"{finding.message} fix: {finding.fix}"},
        "locations": [
            {
                "logicalLocations": [
                    {"name": finding.object.rsplit(".", 1)[-1], "fullyQualifiedName": finding.object}
                ]
            }
        ],
    }
