"""7. Version races: every worker transitions every run from the same version at once
(half of them to 'waiting', half to 'cancelled'). Exactly one transition per run may win;
each loser gets no row (the conflict) and, re-reading, finds the newer version. Then
forbidden transitions are tried: through transition_run (cancelled -> running) and as raw
SQL by the app role (cancelled -> running, waiting -> succeeded, a status change that does
not bump the version): the database itself must refuse them, not only the query's list.

Observed: the journal (who won, what each loser re-read), the runs' final versions, and
which raw statements the database accepted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg
from psycopg import sql

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import WorkerContext

NAME = "version_races"
FORBIDDEN = (  # (from status, SET clause): each must be refused by the database
    ("cancelled", "status = 'running', finished_at = NULL, version = version + 1"),
    ("waiting", "status = 'succeeded', finished_at = now(), version = version + 1"),
    ("waiting", "status = 'queued'"),  # an allowed move that does not bump the version
)


def run(ctx: ScenarioContext) -> ScenarioResult:
    tenant = ctx.tenants[0]  # under row-level security every contender's session is this tenant
    runs = ctx.observer.start_runs(NAME, ((tenant, {}) for _ in range(ctx.options.version_runs)))
    moved = ctx.observer.start_runs(
        NAME, [(tenant, {"forbidden": "cancelled"}), (tenant, {"forbidden": "waiting"})]
    )
    targets = [(str(r["run_id"]), r["version"]) for r in runs]
    tasks = {
        s: ctx.task(
            "race",
            tenant=tenant,
            runs=ctx.rng.sample(targets, len(targets)),
            to=("waiting", "cancelled")[s % 2],
        )
        for s in ctx.slots
    }
    race = ctx.dispatch(tasks, Watch(timeout=120.0 + len(targets)))
    counts = _race_counts(ctx, {t for t, _ in targets})
    to_move = [(str(r["run_id"]), r["version"], r["input"]["forbidden"]) for r in moved]
    forbidden = ctx.dispatch({ctx.slots[0]: ctx.task("forbidden", tenant=tenant, runs=to_move)})
    counts |= _forbidden_counts(ctx, tenant, len(to_move))
    counts["worker_failures"] = len(race.failures + forbidden.failures)
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=9,
    guarded={
        "stale_writes_accepted": "transitions from a version another transition had already moved on",
        "runs_without_winner": "runs where no transition won",
        "unclear_conflicts": "losers that re-read and did not find a newer version",
        "versions_not_bumped_once": "runs whose version is not exactly one past the raced one",
        "forbidden_accepted": "forbidden transitions the database accepted",
        "forbidden_unprepared": "runs the forbidden transitions start from that could not be moved there",
        "forbidden_untried": "raw forbidden transitions never tried (no run in their start status)",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed",
    },
)


def _race_counts(ctx: ScenarioContext, raced: set[str]) -> dict[str, Any]:
    lines = [line for line in ctx.journal() if line["kind"] == "transition"]
    wins = Counter(line["run"] for line in lines if line["won"])
    final = [r for r in ctx.observer.runs(NAME) if str(r["run_id"]) in raced]
    return {
        "runs": len(raced),
        "contenders": len(ctx.slots),
        "transitions_won": sum(wins.values()),
        "stale_writes_accepted": sum(n - 1 for n in wins.values()),
        "runs_without_winner": sum(1 for run in raced if not wins[run]),
        "unclear_conflicts": sum(1 for line in lines if not line["won"] and not line["newer_seen"]),
        "versions_not_bumped_once": sum(1 for r in final if r["version"] != 2),
    }


def _forbidden_counts(ctx: ScenarioContext, tenant: Any, wanted: int) -> dict[str, Any]:
    journal = ctx.journal()
    raw_attempted, raw_accepted = _raw_forbidden(ctx, tenant, ctx.observer.runs(NAME))
    tried = [line for line in journal if line["kind"] == "forbidden"]
    prepared = sum(1 for line in journal if line["kind"] == "prepared" and line["moved"])
    return {
        "forbidden_moves_prepared": prepared,
        "forbidden_unprepared": wanted - prepared,
        "forbidden_attempted": raw_attempted + len(tried),
        "forbidden_untried": len(FORBIDDEN) - raw_attempted,
        "forbidden_accepted": raw_accepted + sum(1 for line in tried if line["accepted"]),
        "errors": errors(journal),
    }


def _raw_forbidden(ctx: ScenarioContext, tenant: Any, final: list[dict[str, Any]]) -> tuple[int, int]:
    """Raw UPDATEs as the app role (it may UPDATE runs): the trigger must refuse them."""
    observer = ctx.observer
    attempted = accepted = 0
    with observer.as_role("app", tenant):
        for status, assignment in FORBIDDEN:
            for run in [r for r in final if r["status"] == status and "forbidden" in r["input"]]:
                attempted += 1
                try:
                    done = observer.conn.execute(
                        sql.SQL("UPDATE {} SET {} WHERE run_id = %s").format(
                            observer.table("runs"), sql.SQL(assignment)
                        ),
                        [run["run_id"]],
                    )
                    accepted += done.rowcount
                except psycopg.Error:
                    pass  # refused, as it must be
    return attempted, accepted


def work_race(w: WorkerContext, tenant: Any, runs: list[tuple[str, int]], to: str) -> dict[str, int]:
    """Wait for every contender, then transition every run from the version all read."""
    rt = w.runtime(tenant)
    scope = w.scope(tenant)
    w.ready()
    for run_id, version in runs:
        try:
            moved = rt.call("transition_run", **scope, run_id=run_id, expected_version=version, to_status=to)
            w.conn.commit()
            newer = (
                moved is not None
                or (rt.call("get_run", **scope, run_id=run_id) or {}).get("version", 0) > version
            )
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "transition_run", error)
            continue
        w.journal.write("transition", run=run_id, won=moved is not None, newer_seen=newer)
    return {}


def work_forbidden(w: WorkerContext, tenant: Any, runs: list[tuple[str, int, str]]) -> dict[str, int]:
    """Move each run to its status (allowed), then try cancelled -> running through
    transition_run: no row, or the database's refusal (the trigger), never a row."""
    rt = w.runtime(tenant)
    scope = w.scope(tenant)
    for run_id, version, status in runs:
        try:
            moved = rt.call(
                "transition_run", **scope, run_id=run_id, expected_version=version, to_status=status
            )
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "transition_run", error)
            continue
        w.journal.write("prepared", run=run_id, moved=moved is not None)
        if moved is not None and status == "cancelled":
            w.journal.write("forbidden", run=run_id, accepted=_runs_again(w, tenant, run_id, moved))
    return {}


def _runs_again(w: WorkerContext, tenant: Any, run_id: str, version: int) -> bool:
    try:
        again = w.runtime(tenant).call(
            "transition_run", **w.scope(tenant), run_id=run_id, expected_version=version, to_status="running"
        )
        w.conn.commit()
    except psycopg.errors.IntegrityError:  # check_violation from the transition trigger: refused
        return False
    return again is not None
