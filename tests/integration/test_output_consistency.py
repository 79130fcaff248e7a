"""Every command that reports findings speaks the same formats: it accepts every
`--format` of the core reporters (json and sarif included); one real, small run of each
through the CLI prints JSON with the top-level `tool`, `schema_version`, `findings` and
`summary` and findings of exactly `Finding.as_dict()`'s keys (lint's with the deprecated
`rule` too), valid against the command's published JSON Schema
(docs/schemas/<command>.schema.json, read with the `jsonschema` validator, not with the
models it is generated from); the same report as SARIF is version 2.1.0 with the
command's rules in the driver.

The commands come from the CLI (`cli.main.COMMANDS`, those with a `--format` option): a
new one fails here until it has a small run in `RUNS` and a schema in
`agentddl.checks.docs.schemas.OUTPUTS`."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
import typer
from profiles import ROOT
from published_schema import published

from agentddl.checks.cli import main as cli
from agentddl.checks.core import report as core_report
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import FORMATS, Report
from agentddl.checks.core.report.json_format import SCHEMA_VERSION
from agentddl.checks.db import PostgresServer
from agentddl.checks.docs.schemas import OUTPUTS

DEFAULT = str(ROOT / "schemas" / "default.yaml")
TRACE = ROOT / "tests" / "fixtures" / "trace"
FINDING_KEYS = list(Finding("X1", "x", "info", "m", "f").as_dict())


def format_commands() -> list[str]:
    cli._register()
    group = typer.main.get_command(cli.app)
    commands = group.commands  # type: ignore[attr-defined]
    return [c for c in cli.COMMANDS if any(p.name == "output_format" for p in commands[c].params)]


def format_choices(command: str) -> list[str]:
    group = typer.main.get_command(cli.app)
    param = next(p for p in group.commands[command].params if p.name == "output_format")  # type: ignore[attr-defined]
    return [choice.value for choice in param.type_descriptor.choices]


@pytest.fixture(scope="module")
def hygiene_dsn(pg_server_latest: PostgresServer) -> Iterator[str]:
    """A database verify has something to say about: a table without a primary key."""
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE public.notes (body text, written timestamp)")
        yield dsn


Argv = Callable[[PostgresServer, str], list[str]]
FIGURES_ONLY = {"bench"}  # reports measurements, never a finding: no rules
RUNS: dict[str, Argv] = {
    "lint": lambda server, dsn: ["lint", str(TRACE / "06_int_to_bigint.sql")],
    "diff": lambda server, dsn: ["diff", DEFAULT, str(ROOT / "schemas" / "examples" / "lease.yaml")],
    "verify": lambda server, dsn: ["verify", "--dsn", dsn],
    "apply": lambda server, dsn: ["apply", "--profile", DEFAULT, "--server", server.admin_dsn],
    "trace": lambda server, dsn: [
        "trace", str(TRACE / "06_int_to_bigint.sql"), "--schema-sql", str(TRACE / "schema.sql"),
        "--server", server.admin_dsn,
    ],
    "audit": lambda server, dsn: ["audit", "--server", server.admin_dsn, "--rows", "5000", "--no-analyze"],
    "bench": lambda server, dsn: [
        "bench", "-p", DEFAULT, "--server", server.admin_dsn, "--clients", "1",
        "--duration", "0.2", "--history", "0", "--path", "sweep",
    ],
    "check": lambda server, dsn: [
        "check", str(TRACE / "06_int_to_bigint.sql"), "--clone", dsn, "--server", server.admin_dsn,
    ],
    "prove": lambda server, dsn: [
        "prove", "--profile", DEFAULT, "--server", server.admin_dsn,
        "--workers", "2", "--runs", "20", "--scenario", "claim_race",
    ],
}  # fmt: skip


def test_every_command_with_findings_accepts_every_format() -> None:
    commands = format_commands()
    assert set(commands) >= {"lint", "verify", "apply", "trace", "audit", "prove"}
    for command in commands:
        assert format_choices(command) == list(FORMATS), command
    assert set(commands) <= set(RUNS), f"add a small run to RUNS for {set(commands) - set(RUNS)}"
    unpublished = set(commands) - set(OUTPUTS)
    assert not unpublished, f"add a line to agentddl.checks.docs.schemas.OUTPUTS for {unpublished}"


@pytest.mark.parametrize("command", format_commands())
def test_one_finding_shape_in_json_and_sarif(
    command: str,
    pg_server_latest: PostgresServer,
    hygiene_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rendered: list[Report] = []
    real_render = core_report.render

    def spy(report: Report, fmt: str, out: Any) -> None:  # the real reporter, and the report it got
        rendered.append(report)
        real_render(report, fmt, out)

    monkeypatch.setattr(core_report, "render", spy)
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
    code = cli.main([*RUNS[command](pg_server_latest, hygiene_dsn), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    document = json.loads(out)
    keys = list(document)
    assert keys[:2] == ["tool", "schema_version"] and keys[-2:] == ["findings", "summary"]
    assert document["tool"] == command and document["schema_version"] == SCHEMA_VERSION
    assert set(document["summary"]) == {"error", "warning", "info"}
    expected = FINDING_KEYS + (["rule"] if command == "lint" else [])  # lint's deprecated alias
    assert all(list(finding) == expected for finding in document["findings"])
    assert all(f["rule"] == f["name"] for f in document["findings"] if command == "lint")
    errors = sorted(published(command).iter_errors(document), key=str)
    assert not errors, [f"{e.json_path}: {e.message}" for e in errors[:5]]
    if command in ("lint", "verify", "trace", "check"):  # runs chosen to have something to report
        assert document["findings"], command
    (report,) = rendered
    sarif = io.StringIO()
    real_render(report, "sarif", sarif)
    log = json.loads(sarif.getvalue())
    driver = log["runs"][0]["tool"]["driver"]
    assert log["version"] == "2.1.0" and driver["name"] == "agentddl"
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids[: len(report.rules)] == [rule.code for rule in report.rules]
    assert report.rules or command in FIGURES_ONLY
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == [f["code"] for f in document["findings"]]
    assert all(r["ruleId"] in rule_ids for r in log["runs"][0]["results"])
