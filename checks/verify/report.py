"""`agentddl verify` and `agentddl apply` as a `core.report.Report`: the findings and
every verify rule; apply's declared-vs-catalog table in text and Markdown."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from agentddl.checks.core.report import Report
from agentddl.checks.verify.result import ApplyResult, VerifyResult
from agentddl.checks.verify.rules import all_rules

LANDED = (
    "apply: every declared object is in pg_catalog; schema.sql and `alembic upgrade head` "
    "give identical catalogs."
)
COLUMNS = ("table", "constraints", "indexes", "partitions")


def build_report(result: VerifyResult) -> Report:
    return Report(tool="verify", findings=result.findings, rules=all_rules(), about=result.about)


def build_apply_report(result: ApplyResult) -> Report:
    return Report(
        tool="apply",
        findings=result.findings,
        rules=all_rules(),
        about=result.about,
        details={"tables": result.tables},
        text_body=lambda console: _table(result, console),
        markdown_body=lambda: _markdown(result),
        summary=None if result.findings else LANDED,
    )


def _table(result: ApplyResult, console: Console) -> None:
    table = Table(title=f"schema {result.about['schema']}: declared vs pg_catalog")
    for column in COLUMNS:
        table.add_column(column)
    for row in result.tables:
        table.add_row(*(_cell(row[column]) for column in COLUMNS))
    console.print(table)


def _markdown(result: ApplyResult) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_cell(row[column]) for column in COLUMNS) + " |" for row in result.tables]
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)
