"""`agentddl check` as one `core.report.Report`: every step's findings (errors first), every
step's rules (SARIF's driver, docs links), a one-line verdict per step at the top of text
and Markdown, and each step's own report in JSON.

JSON keys (stable): tool ("check"), migrations, changed_since, clone, baseline (the last
three when given), steps[{step, verdict (held, failed, skipped), summary, about, details,
counts, findings}] (about, details, counts and findings: the family's own report, when
the step ran), findings (every step's), summary.
"""

from __future__ import annotations

import functools

from rich.console import Console
from rich.markup import escape

from agentddl.checks.core.report import Report
from agentddl.checks.core.rules import Rule
from agentddl.checks.gate.result import CheckResult, StepResult

_STYLE = {"held": "green", "failed": "bold red", "skipped": "dim"}


def build_report(result: CheckResult) -> Report:
    reports = [step.report for step in result.steps if step.report is not None]
    rules: dict[str, type[Rule]] = {}
    for report in reports:
        for rule in report.rules:
            rules.setdefault(rule.code, rule)
    return Report(
        tool="check",
        findings=result.findings,
        rules=tuple(rules.values()),
        about=result.about,
        details={"steps": [step.as_json() for step in result.steps]},
        sources={path: text for report in reports for path, text in report.sources.items()},
        text_body=functools.partial(_text, result),
        markdown_body=functools.partial(_markdown, result),
        summary=result.summary_line(),
        failed=result.failed,
        errors_first=True,
    )


def _text(result: CheckResult, console: Console) -> None:
    for step in result.steps:
        console.print(f"[{_STYLE[step.verdict]}]{escape(step.line())}[/]")
    for step in result.steps:
        if step.report is not None and step.report.text_body is not None:
            step.report.text_body(console)


def _markdown(result: CheckResult) -> str:
    """One line per step, failed ones marked: what a reviewer reads first."""
    return "\n".join(_verdict_line(step) for step in result.steps) + "\n"


def _verdict_line(step: StepResult) -> str:
    mark = {"held": "held", "failed": "**failed**", "skipped": "skipped"}[step.verdict]
    return f"- {step.step}: {mark}: {step.summary()}"
