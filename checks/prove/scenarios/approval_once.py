"""10. Approvals decided once: runs wait for a person's approval, and every worker decides
every pending approval at the same moment (approved or rejected at random) with
decide_approval. Per approval exactly one decision may win; the stored decision is the
winner's; and the winner's event (approval.<decision>) is written with it, once.

Observed: the journal holds every decision a worker was told it won; the database holds
the approvals and their runs' events. A profile without approvals (model.approvals off)
has nothing to decide: the scenario holds with no approvals.
"""

from __future__ import annotations

import json
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

NAME = "approval_once"
PER_WORKER = 3  # approvals per worker: every worker decides all of them


def run(ctx: ScenarioContext) -> ScenarioResult:
    if not ctx.model.profile.model.approvals:
        return ctx.result({"approvals": 0}, SCENARIO.guarded)
    tenant = ctx.tenants[0]  # one tenant: under row-level security every worker may see them
    runs = ctx.observer.start_runs(NAME, ((tenant, {}) for _ in range(PER_WORKER * len(ctx.slots))))
    approvals = _request(ctx, runs)
    tasks = {
        slot: ctx.task("decide", tenant=tenant, approvals=ctx.rng.sample(approvals, len(approvals)))
        for slot in ctx.slots
    }
    dispatch = ctx.dispatch(tasks, Watch(timeout=60.0 + len(approvals) * len(ctx.slots) * 0.2))
    counts = judge(ctx.journal(), _stored(ctx), len(approvals))
    return ctx.result(counts, SCENARIO.guarded, dispatch)


SCENARIO = Scenario(
    NAME,
    order=10,
    guarded={
        "double_decisions": "approvals decided more than once",
        "undecided": "approvals no decision won",
        "wrong_decisions": "approvals whose stored decision is not the winner's",
        "events_not_once": "decided approvals whose run has not exactly one approval event",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def _request(ctx: ScenarioContext, runs: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    """Set-up, not the runtime: each run waits (version bumped) on one pending approval."""
    o = ctx.observer
    key = [o.tenant_column] if o.tenant_column else []
    columns = [*key, "run_id", "request", "requested_by", "fencing_token"]
    insert = sql.SQL("INSERT INTO {} ({}) VALUES ({}) RETURNING run_id, approval_id").format(
        o.table("approvals"),
        sql.SQL(", ").join(sql.Identifier(c) for c in columns),
        sql.SQL(", ").join(sql.Placeholder() * len(columns)),
    )
    found = []
    for run in runs:
        values = [*(run[c] for c in key), run["run_id"], json.dumps({"scenario": NAME}), "prove", 0]
        row = o.one(insert, values)
        found.append((row["run_id"], row["approval_id"]))
    o.rows(
        sql.SQL("UPDATE {} SET status = 'waiting', version = version + 1 WHERE run_id = ANY(%s)").format(
            o.table("runs")
        ),
        [[r["run_id"] for r in runs]],
    )
    return found


def _stored(ctx: ScenarioContext) -> dict[str, dict[str, Any]]:
    """Per approval of the scenario: its stored status and its run's approval events."""
    o = ctx.observer
    key = [o.tenant_column] if o.tenant_column else []
    match = " AND ".join(f"e.{c} = ap.{c}" for c in (*key, "run_id"))
    statement = sql.SQL(
        "SELECT ap.approval_id::text AS approval, ap.status, (SELECT count(*) FROM {events} AS e"
        " WHERE " + match + " AND e.kind LIKE 'approval.%%') AS events"
        " FROM {approvals} AS ap WHERE ap.request ->> 'scenario' = %s"
    ).format(events=o.table("events"), approvals=o.table("approvals"))
    return {row["approval"]: row for row in o.rows(statement, [NAME])}


def judge(journal: list[dict[str, Any]], stored: dict[str, dict[str, Any]], expected: int) -> dict[str, Any]:
    won: dict[str, list[str]] = {}
    for line in journal:
        if line["kind"] == "decided":
            won.setdefault(line["approval"], []).append(line["decision"])
    decided = [a for a in stored if won.get(a)]
    return {
        "approvals": len(stored),
        "decisions": sum(len(w) for w in won.values()),
        "by_decision": dict(Counter(d for w in won.values() for d in w)),
        "double_decisions": sum(1 for w in won.values() if len(w) > 1),
        "undecided": max(0, expected - len(decided)),
        "wrong_decisions": sum(1 for a in decided if stored[a]["status"] != won[a][-1]),
        "events_not_once": sum(1 for a in decided if stored[a]["events"] != 1),
        "errors": errors(journal),
    }


def work_decide(w: WorkerContext, tenant: Any, approvals: list[tuple[Any, Any]]) -> dict[str, Any]:
    """Wait for every worker, then decide every approval; journal each decision won."""
    w.ready()
    won = 0
    for run_id, approval_id in approvals:
        decision = w.rng.choice(("approved", "rejected"))
        try:
            row = w.runtime(tenant).call(
                "decide_approval",
                **w.scope(tenant),
                run_id=run_id,
                approval_id=approval_id,
                decision=decision,
                decided_by=f"prover-{w.slot}",
                decision_note=None,
            )
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "decide_approval", error)
            continue
        if row is not None:
            won += 1
            event = row["event_seq"]
            w.journal.write("decided", approval=str(approval_id), decision=decision, event_seq=event)
    return {"won": won}
