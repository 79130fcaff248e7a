"""prove's pure parts: who runs a query, verdicts and totals, the journal, the history and
idempotency judges, and the CLI's usage errors (before any database is touched)."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.db.runtime import role_of
from agentddl.checks.prove.journal import Journal, read_journal
from agentddl.checks.prove.result import TOTAL_KEYS, ProveResult, ScenarioResult
from agentddl.checks.prove.runner import _run_scenario
from agentddl.checks.prove.scenarios.base import overlapping_attempts, verdict
from agentddl.checks.prove.scenarios.idempotency import SCENARIO, judge
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.render.queries.base import BACKOFF_CAP, backoff_sql, backoff_wait

T0 = datetime(2026, 1, 1)


def test_each_query_runs_as_its_production_role() -> None:
    assert role_of("claim_run") == role_of("save_checkpoint") == "app"
    assert role_of("relay_claim") == role_of("mark_delivered") == "relay"
    assert role_of("health_outbox_lag") == "readonly"
    assert role_of("purge_outbox") == role_of("maintain_partitions") == "owner"
    assert role_of("not a query") is None


def test_a_scenario_holds_only_when_every_guarded_count_is_zero() -> None:
    held = verdict(
        "claim_race", "lease", {"double_claims": 0, "runs": 5}, {"double_claims": "runs claimed twice"}
    )
    broken = verdict("claim_race", "lease", {"double_claims": 2}, {"double_claims": "runs claimed twice"})
    assert held.held and held.violations == []
    assert not broken.held and broken.violations == ["runs claimed twice: 2"]


def test_totals_sum_the_scenarios_in_the_documented_keys() -> None:
    report = ProveResult(
        [
            ScenarioResult("outbox", "lease", {"duplicate_deliveries": 3, "runs_completed": 10}),
            ScenarioResult("claim_race", "lease", {"runs_completed": 5}, ["x: 1"]),
        ],
        2.0,
        {"profile": "p"},
    )
    shape = report.to_json()
    assert list(shape["totals"]) == [*TOTAL_KEYS, "seconds"]
    assert shape["totals"]["duplicate_deliveries"] == 3 and shape["totals"]["runs_completed"] == 15
    assert shape["run"]["runs_per_second"] == 7.5
    assert [s["held"] for s in shape["scenarios"]] == [True, False] and not report.held
    json.dumps(shape)


def test_the_journal_skips_a_line_torn_by_a_kill(tmp_path: Path) -> None:
    journal = Journal(str(tmp_path), slot=1)
    journal.scenario = "outbox"
    journal.write("delivered", message="m1")
    journal.close()
    path = next(tmp_path.glob("*.jsonl"))
    with path.open("a") as torn:
        torn.write('{"kind": "delivered", "scen')
    other = Journal(str(tmp_path), slot=2)
    other.scenario = "claim_race"
    other.write("claimed", run="r")
    assert [line["message"] for line in read_journal(str(tmp_path), "outbox")] == ["m1"]
    assert os.path.getsize(path) > 0


def attempt(run: str, start: int, end: int | None, status: str = "succeeded") -> dict[str, object]:
    ended = T0 + timedelta(seconds=end) if end is not None else None
    return {"run_id": run, "started_at": T0 + timedelta(seconds=start), "ended_at": ended, "status": status}


def test_overlapping_attempts_come_from_the_history() -> None:
    sequential = [attempt("a", 0, 5, "failed"), attempt("a", 5, 9)]
    overlapping = [attempt("b", 0, 5, "succeeded"), attempt("b", 3, 9)]
    still_active = [attempt("c", 0, None, "active"), attempt("c", 4, 6)]
    reaped = [attempt("d", 0, 5, "expired"), attempt("d", 4, 6)]  # the reaper's clock: not counted
    assert overlapping_attempts(sequential + overlapping + still_active + reaped) == 2


def request(key: str, amount: int, outcome: str, result: str | None = None) -> dict[str, object]:
    return {"kind": "request", "key": key, "input": amount, "outcome": outcome, "result": result, "waits": 0}


def test_idempotency_judge_counts_second_effects_wrong_results_and_missed_conflicts() -> None:
    journal = [
        {"kind": "effect", "key": "k", "input": 10, "effect": "e1"},
        request("k", 10, "performed", "e1"),
        request("k", 10, "reused", "e1"),
        request("k", 99, "conflict"),
        {"kind": "effect", "key": "k", "input": 10, "effect": "e2"},  # a second effect
        request("k", 10, "performed", "e2"),  # ... so a wrong result
        request("k", 99, "reused", "e1"),  # a different input got the first result
    ]
    counts = judge(journal, expected_requests=5)
    assert (counts["duplicate_effects"], counts["wrong_results"], counts["conflicts_missed"]) == (1, 1, 1)
    assert counts["requests_missing"] == 0


def test_idempotency_with_no_request_made_is_not_held() -> None:
    """Every worker found no run to hold (a claim query that returns nothing): no request,
    no effect, no conflict; every other count is zero, so this one must not be."""
    counts = judge([], expected_requests=3 * 8)
    assert counts["requests_missing"] == 24
    assert not verdict("idempotency", "lease", counts, SCENARIO.guarded).held


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--format", "xml"], "Invalid value for '--format' / '-f'"),  # the shared --format option
        (["--strategy", "mutex"], "--strategy: expected all or one of"),
        (["--scenario", "fire"], "unknown scenario 'fire'"),
        (["--workers", "1"], "races need at least 2 workers"),
    ],
)
def test_usage_errors_exit_2_before_any_database(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = str(Path(__file__).resolve().parents[3] / "schemas" / "default.yaml")
    code = main(["prove", "--profile", profile, "--dsn", "postgresql://nobody@127.0.0.1:1/none", *option])
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("dsn", "message"),
    [
        ("notadsn", 'agentddl: invalid DSN: missing "=" after "notadsn"'),  # was a traceback, exit 1
        ("postgresql://127.0.0.1:1/\udcff", "agentddl: invalid DSN: not UTF-8 text"),  # argv's bytes 0xff
        ("postgresql://nobody@127.0.0.1:1/none", "agentddl: cannot connect to PostgreSQL at 127.0.0.1:1/"),
    ],
)
def test_a_bad_or_unreachable_dsn_is_one_line_exit_2(
    dsn: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = str(Path(__file__).resolve().parents[3] / "schemas" / "default.yaml")
    assert main(["prove", "--profile", profile, "--dsn", dsn]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err


def test_a_server_older_than_the_profile_engine_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An engine-18 profile on --pg-version 14 was a 43-57-line traceback (the schema's
    18-only DDL failing mid-install); now refused before any server starts."""
    profile = str(Path(__file__).resolve().parents[3] / "schemas" / "examples" / "newest-engine.yaml")
    assert main(["prove", "--profile", profile, "--pg-version", "14", "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("agentddl: profile 'newest_engine' targets PostgreSQL 18, but the embedded server")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--server", "postgresql://nobody@127.0.0.1:1/none"], "--dsn proves the schema already in that"),
        (["--pg-version", "16"], "--dsn proves the schema already in that"),
        (["--strategy", "lease", "--strategy", "advisory"], "--dsn proves the one schema in the database"),
    ],
)
def test_dsn_is_the_database_to_prove_in_not_a_server(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = str(Path(__file__).resolve().parents[3] / "schemas" / "default.yaml")
    code = main(["prove", "--profile", profile, "--dsn", "postgresql://nobody@127.0.0.1:1/none", *option])
    assert code == 2
    assert message in capsys.readouterr().err


def test_existing_is_a_deprecated_alias_with_one_note(capsys: pytest.CaptureFixture[str]) -> None:
    profile = str(Path(__file__).resolve().parents[3] / "schemas" / "default.yaml")
    dsn = "postgresql://nobody@127.0.0.1:1/none"
    assert main(["prove", "--profile", profile, "--dsn", dsn, "--existing"]) == 2
    lines = capsys.readouterr().err.splitlines()
    note = "agentddl: --existing is deprecated and does nothing: --dsn always proves the schema in place"
    assert lines[0] == note
    assert lines[1].startswith("agentddl: cannot connect to PostgreSQL at 127.0.0.1:1/") and len(lines) == 2


def test_the_observers_backoff_is_the_queries_capped_one() -> None:
    """poison_message's observer once computed 2 ** (attempts - 1) uncapped: on a fast
    machine with the dead-letter guard removed, a message tried ~1,100 times overflowed a
    float and prove crashed instead of reporting the weakening broken."""
    assert [backoff_wait(1, n) for n in (1, 2, 3, 11)] == [1, 2, 4, 1024]
    assert backoff_wait(1, 5_000) == backoff_wait(1, 11) == 2**BACKOFF_CAP
    assert backoff_wait(30, 0) == 30
    sql = backoff_sql("CAST(:backoff_seconds AS integer)", "m.delivery_attempts")
    assert f"least(m.delivery_attempts - 1, {BACKOFF_CAP})" in sql


def test_a_crash_in_a_scenarios_own_code_is_one_located_error() -> None:
    class Broken:
        @staticmethod
        def run(ctx: object) -> object:
            return 1.0 + 2**5000  # what the uncapped observer did

    sys.modules["agentddl.checks.prove.scenarios._broken_for_test"] = Broken  # type: ignore[assignment]
    try:
        with pytest.raises(AgentDDLError) as raised:
            _run_scenario("_broken_for_test", None, "optimistic")  # type: ignore[arg-type]
    finally:
        del sys.modules["agentddl.checks.prove.scenarios._broken_for_test"]
    message = str(raised.value)
    assert message.startswith("prove optimistic _broken_for_test: test_prove_units.py:")
    assert "in run: OverflowError" in message and "\n" not in message
