"""1. Claim race: N workers drain M queued runs. Every run is claimed by exactly one
live attempt at a time, none twice, none skipped.

Observed: each worker journals every claim and every step's effect (the work a claim
entitles it to); the coordinator samples the attempts table for two active attempts of
one run while the race runs, and reads the attempts' history afterwards. The lease is
long here, so no claim can legitimately expire: a second claim of a run is a double claim.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.prove import steps
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors, overlapping_attempts
from agentddl.checks.prove.worker import WorkerContext

NAME = "claim_race"
LEASE_SECONDS = 120  # nothing expires during the race: every extra claim is a double one
STEPS = 1


def run(ctx: ScenarioContext) -> ScenarioResult:
    runs = ctx.observer.start_runs(NAME, ((ctx.rng.choice(ctx.tenants), {}) for _ in range(ctx.options.runs)))
    sampler = DoubleActiveSampler(ctx)
    sampler.start()
    tasks = {s: ctx.task("drain", lease=LEASE_SECONDS, tenant=ctx.tenant_of_slot(s)) for s in ctx.slots}
    dispatch = ctx.dispatch(tasks, ctx.drain_watch())
    sampler.stop()
    journal = ctx.journal()
    claims = Counter(line["run"] for line in journal if line["kind"] == "claimed")
    effects = Counter((line["run"], line["seq"]) for line in journal if line["kind"] == "effect")
    final = ctx.observer.runs(NAME)
    completed = sum(1 for r in final if r["status"] == "succeeded")
    counts = {
        "runs": len(runs),
        "workers": len(ctx.slots),
        "runs_completed": completed,
        "claims": sum(claims.values()),
        "double_claims": sum(1 for n in claims.values() if n > 1),
        "duplicate_effects": sum(n - 1 for n in effects.values()),
        "overlapping_attempts": overlapping_attempts(ctx.observer.attempts(NAME)),
        "sampled_double_active": sampler.seen,
        "lost_runs": len(runs) - completed,
        "errors": errors(journal),
        "runs_per_second": round(completed / dispatch.seconds, 1) if dispatch.seconds else 0.0,
    }
    return ctx.result(
        counts,
        {
            "double_claims": "runs claimed more than once",
            "duplicate_effects": "steps done twice (two claims worked one run)",
            "overlapping_attempts": "runs with two live attempts at once (attempts history)",
            "sampled_double_active": "samples that caught a run with two active attempts",
            "lost_runs": "runs never completed (skipped or lost)",
            "errors": "named queries that raised",
        },
        dispatch,
    )


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
        with psycopg.connect(self.ctx.observer.dsn, autocommit=True) as conn:
            while not self._done.wait(0.05):
                row = conn.execute(query).fetchone()
                self.seen += 1 if row and row[0] else 0


def work_drain(w: WorkerContext, tenant: Any) -> dict[str, int]:
    return steps.drain(w, tenant, STEPS)
