"""1. Claim race: N workers drain M queued runs. Every run is claimed by exactly one
live attempt at a time, none twice, none skipped.

Observed: each worker journals every claim and every step's effect (the work a claim
entitles it to); the coordinator samples the attempts table for two active attempts of
one run while the race runs, and reads the attempts' history afterwards. The lease is
long here, so no claim can legitimately expire: a second claim of a run is a double claim.
Then the invariant itself, not only the claim queries that keep it: while a worker holds
a run, a second active attempt inserted as the app role must be refused by the database.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import psycopg
from psycopg import sql

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors, overlapping_attempts
from agentddl.checks.prove.sessions import open_session
from agentddl.checks.prove.worker import WorkerContext

NAME = "claim_race"
LEASE_SECONDS = 120  # nothing expires during the race: every extra claim is a double one
STEPS = 1


def run(ctx: ScenarioContext) -> ScenarioResult:
    runs = ctx.observer.start_runs(NAME, ((ctx.rng.choice(ctx.tenants), {}) for _ in range(ctx.options.runs)))
    sampler = DoubleActiveSampler(ctx)
    sampler.start()
    tasks = {s: ctx.task("drain", lease=LEASE_SECONDS, tenant=ctx.tenant_of_slot(s)) for s in ctx.slots}
    try:
        dispatch = ctx.dispatch(tasks, ctx.drain_watch())
    finally:
        sampler.stop()
    counts = _observe(ctx, len(runs), dispatch.seconds)
    counts["sampled_double_active"] = sampler.seen
    counts |= _second_active_attempt(ctx)
    return ctx.result(counts, SCENARIO.guarded, dispatch)


SCENARIO = Scenario(
    NAME,
    order=1,
    guarded={
        "double_claims": "runs claimed more than once",
        "duplicate_effects": "steps done twice (two claims worked one run)",
        "overlapping_attempts": "runs with two live attempts at once (attempts history)",
        "sampled_double_active": "samples that caught a run with two active attempts",
        "lost_runs": "runs never completed (skipped or lost)",
        "second_active_attempt_accepted": "a second active attempt of a held run the database accepted",
        "second_active_attempt_untested": "no worker could claim the run held for the "
        "one-active-attempt check",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def _observe(ctx: ScenarioContext, runs: int, seconds: float) -> dict[str, Any]:
    journal = ctx.journal()
    claims = Counter(line["run"] for line in journal if line["kind"] == "claimed")
    effects = Counter((line["run"], line["seq"]) for line in journal if line["kind"] == "effect")
    completed = ctx.completed_runs()
    return {
        "runs": runs,
        "workers": len(ctx.slots),
        "runs_completed": completed,
        "claims": sum(claims.values()),
        "double_claims": sum(1 for n in claims.values() if n > 1),
        "duplicate_effects": sum(n - 1 for n in effects.values()),
        "overlapping_attempts": overlapping_attempts(ctx.observer.attempts(NAME)),
        "lost_runs": runs - completed,
        "errors": errors(journal),
        "runs_per_second": round(completed / seconds, 1) if seconds else 0.0,
    }


def _second_active_attempt(ctx: ScenarioContext) -> dict[str, int]:
    """Whether the database took a second active attempt for a run a worker holds (raw
    SQL as the app role, rolled back either way), or could not be asked (nothing held)."""
    tenant = ctx.tenants[0]
    ctx.observer.start_runs(NAME, [(tenant, {"held": True})])
    held = ctx.dispatch({ctx.slots[0]: ctx.task("hold", lease=LEASE_SECONDS, tenant=tenant)})
    claim = next((r["claim"] for r in held.all_results() if r.get("claim")), None)
    if claim is None:  # a claim query that claims nothing: broken, not a usage error
        return {"second_active_attempt_accepted": 0, "second_active_attempt_untested": 1}
    accepted = _intrude(ctx, tenant, claim)
    return {"second_active_attempt_accepted": accepted, "second_active_attempt_untested": 0}


def _intrude(ctx: ScenarioContext, tenant: Any, claim: dict[str, Any]) -> int:
    """1 if the second active attempt was accepted, 0 if refused."""
    insert, values = _intruder(ctx, claim)
    observer = ctx.observer
    with observer.as_role("app", tenant):
        try:
            with observer.conn.transaction(force_rollback=True):
                observer.conn.execute(insert, values)
        except psycopg.errors.UniqueViolation:
            return 0
    return 1


def _intruder(ctx: ScenarioContext, claim: dict[str, Any]) -> tuple[sql.Composed, list[Any]]:
    """A second active attempt of the claimed run (the next attempt number, so only the
    one-active-attempt rule can refuse it)."""
    column = ctx.model.profile.tenancy.column
    values = {**({column: claim[column]} if column else {}), "run_id": claim["run_id"]}
    values |= {"attempt_no": claim["attempt_no"] + 1, "fencing_token": claim["fencing_token"]}
    insert = sql.SQL(
        "INSERT INTO {} ({}, worker_id, lease_token_hash, lease_expires_at) "
        "VALUES ({}, 'intruder', sha256('intruder'::bytea), now() + interval '1 minute')"
    ).format(
        ctx.observer.table("attempts"),
        sql.SQL(", ").join(sql.Identifier(c) for c in values),
        sql.SQL(", ").join(sql.Placeholder() * len(values)),
    )
    return insert, list(values.values())


class DoubleActiveSampler:
    """Counts, while the race runs, samples with a run holding two active attempts."""

    def __init__(self, ctx: ScenarioContext) -> None:
        self.ctx, self.seen = ctx, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _loop(self) -> None:
        query = sql.SQL(
            "SELECT count(*) AS n FROM (SELECT a.run_id FROM {} AS a WHERE a.status = 'active' "
            "GROUP BY a.run_id HAVING count(*) > 1) AS doubled"
        ).format(self.ctx.observer.table("attempts"))
        with open_session(self.ctx.observer.dsn, "sampler") as conn:
            owner = self.ctx.model.profile.role("owner")  # sees every tenant's attempts
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(owner)))
            while not self._done.wait(0.05):
                row = conn.execute(query).fetchone()
                self.seen += 1 if row and row[0] else 0


def work_drain(w: WorkerContext, tenant: Any) -> dict[str, int]:
    return steps.drain(w, tenant, STEPS)


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim one run and keep it (its attempt stays active)."""
    return {"claim": steps.claim_within(w, tenant, 30)}
