"""5. Outbox: workers finish runs and write each run's message in the same transaction;
some die right after that COMMIT. Relays claim messages, hand them to the consumer and
acknowledge; some relays die after claiming (before delivering) or after delivering
(before acknowledging). Every message must be delivered at least once, none lost;
duplicate deliveries are counted, and the consumer dedupes them by message id.

Observed: the outbox rows in the database (one per succeeded run, none for a run that
did not succeed) against the consumer's side, the journal: every delivery it received.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import psycopg

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import TERMINAL
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Task, WorkerContext

NAME = "outbox"
BATCH = 10


def run(ctx: ScenarioContext) -> ScenarioResult:
    relays = ctx.slots[: max(1, len(ctx.slots) // 4)]
    workers = [s for s in ctx.slots if s not in relays]
    served = [ctx.tenant_of_slot(s) for s in workers]  # relays claim no runs
    ctx.observer.start_runs(NAME, ((ctx.rng.choice(served), {}) for _ in range(ctx.options.outbox_runs)))
    crashes: dict[str, list[str]] = {
        # popped from the end: a claim-time crash first; a delivery-time one where a second
        # relay can die at the same time (one relay dying twice only makes the run longer)
        "relay": (["after_delivery"] if len(relays) > 1 else []) + ["after_relay_claim"],
        # every first worker dies after a commit: one of them surely gets a run to finish
        "worker": ["after_complete"] * len(workers),
    }

    def task_for(slot: int) -> Task:
        role = "relay" if slot in relays else "worker"
        crash = crashes[role].pop() if crashes[role] else None
        if role == "relay":
            return ctx.task("relay", crash_at=crash, tenants=list(ctx.tenants))
        return ctx.task(
            "drain", crash_at=crash, tenant=ctx.tenant_of_slot(slot), crash_step=2 if crash else None
        )

    watch = Watch(
        finished=lambda: ctx.observer.live_runs(NAME) == 0 and _undelivered(ctx) == 0,
        progress=lambda: (ctx.observer.progress(NAME), _undelivered(ctx)),
        stall_seconds=ctx.options.stall_seconds,
        replacement=task_for,
    )
    dispatch = ctx.dispatch({s: task_for(s) for s in ctx.slots}, watch)
    return ctx.result(observe(ctx, dispatch.deaths), SCENARIO.guarded, dispatch)


def _crashes(journal: list[dict[str, Any]], point: str) -> int:
    return sum(1 for line in journal if line["kind"] == "crash" and line["point"] == point)


SCENARIO = Scenario(
    NAME,
    order=6,
    guarded={
        "crash_points_missed": "planned crashes (after the commit, after the relay's claim) never reached",
        "lost_outbox": "messages never delivered, or succeeded runs without their message",
        "phantom_messages": "messages of runs whose state change did not commit",
        "stuck_runs": "runs still in progress when nothing moved any more",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def _undelivered(ctx: ScenarioContext) -> int:
    return sum(1 for m in ctx.observer.child_rows("outbox", NAME) if m["delivered_at"] is None)


def observe(ctx: ScenarioContext, deaths: int) -> dict[str, Any]:
    journal = ctx.journal()
    messages = ctx.observer.child_rows("outbox", NAME)
    final = ctx.observer.runs(NAME)
    succeeded = {r["run_id"] for r in final if r["status"] == "succeeded"}
    with_message = {m["run_id"] for m in messages}
    ids = {str(m["message_id"]) for m in messages}
    deliveries = Counter(
        line["message"] for line in journal if line["kind"] == "delivered" and line["message"] in ids
    )
    never_delivered = len(ids - set(deliveries))
    return {
        "runs": len(final),
        "runs_completed": len(succeeded),
        "messages": len(messages),
        "deliveries": sum(deliveries.values()),
        "consumer_after_dedupe": len(set(deliveries)),
        "duplicate_deliveries": sum(n - 1 for n in deliveries.values()),
        "lost_outbox": never_delivered + len(succeeded - with_message),
        "acked_not_delivered": sum(
            1 for m in messages if m["delivered_at"] and str(m["message_id"]) not in deliveries
        ),
        "phantom_messages": len(with_message - succeeded),
        "worker_crashes_after_commit": _crashes(journal, "after_complete"),
        "relay_crashes_after_claim": _crashes(journal, "after_relay_claim"),
        "relay_crashes_after_delivery": _crashes(journal, "after_delivery"),
        "workers_replaced": deaths,
        "crash_points_missed": sum(
            1 for p in ("after_complete", "after_relay_claim") if not _crashes(journal, p)
        ),
        "stuck_runs": sum(1 for r in final if r["status"] not in TERMINAL),
        "errors": errors(journal),
    }


def work_drain(w: WorkerContext, tenant: Any, crash_step: int | None) -> dict[str, int]:
    return steps.drain(w, tenant, 1, message=True, crash_step=crash_step)


def work_relay(w: WorkerContext, tenants: Sequence[Any] = ()) -> dict[str, int]:
    """Claim a batch, deliver each message to the consumer (the journal), acknowledge."""
    relay_id = f"relay-{w.slot}-{w.new_token()[-8:]}"
    counts = {"batches": 0, "acked": 0}
    rt = w.runtime(None)
    while not w.stop.is_set():
        try:
            batch = steps.relay_claim(w, rt, relay_id, BATCH, tenants)
            w.conn.commit()
            if not batch:
                steps.pause(w.rng.uniform(0.02, 0.05))
                continue
            counts["batches"] += 1
            w.armed = True
            w.maybe_crash("after_relay_claim")
            for message in batch:
                w.journal.write("delivered", message=str(message["message_id"]))
                w.maybe_crash("after_delivery")
                key = w.scope(message[w.tenant_column] if w.tenant_column else None)
                counts["acked"] += rt.call(
                    "mark_delivered", **key, message_id=message["message_id"], relay_id=relay_id
                )
                w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "relay", error)
    return counts
