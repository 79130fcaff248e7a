"""8. Poison message: the outbox holds healthy messages and poison ones among them. The
consumer refuses one kind every time (the relay reports it with fail_delivery), and the
other kills the relay that takes it, every time (SIGKILL after the claim). Each poison
message must be tried at most its max_attempts times, backing off after each refusal,
then dead-lettered and listed as such (dead_letters, health_dead_letters); every
healthy message is still delivered, none dead-lettered.

Observed: the relays' journal (every claim of a message, every refusal with the wait it
was given, every delivery, every crash) against the outbox rows at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import psycopg

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Row, Task, WorkerContext
from agentddl.generator.render.queries.base import backoff_wait

NAME = "poison_message"
MAX_ATTEMPTS = 2  # of the scenario's messages (a column of each): small, so the bound is reached
BACKOFF_SECONDS = 1  # after the first refusal (then doubling)
REFUSED, CRASHING, HEALTHY = "poison.refused", "poison.crash", "healthy"
BATCH = 5
SLACK = 0.25  # seconds a claim may come before its backoff ended (clock and poll granularity)


def run(ctx: ScenarioContext) -> ScenarioResult:
    healthy = max(4, ctx.options.outbox_runs // 4)
    runs = ctx.observer.start_runs(NAME, ((ctx.rng.choice(ctx.tenants), {}) for _ in range(healthy + 2)))
    topics = [REFUSED, CRASHING] + [HEALTHY] * healthy
    ctx.observer.enqueue(NAME, [(run, topic, MAX_ATTEMPTS) for run, topic in zip(runs, topics, strict=True)])

    def relay(slot: int) -> Task:
        return ctx.task("relay", crash_at="poison", tenants=list(ctx.tenants))

    watch = Watch(
        finished=lambda: _settled(ctx),
        progress=lambda: _progress(ctx),
        stall_seconds=ctx.options.stall_seconds + BACKOFF_SECONDS * 2**MAX_ATTEMPTS,
        timeout=120.0,
        replacement=relay,
    )
    dispatch = ctx.dispatch({s: relay(s) for s in ctx.slots}, watch)
    listing = ctx.dispatch({ctx.slots[0]: ctx.task("list")})
    shown = next(iter(listing.all_results()), {"listed": [], "counted": 0})
    counts = observe(ctx, dispatch.deaths, shown)
    counts["worker_failures"] = len(dispatch.failures) + len(listing.failures)
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=7,
    guarded={
        "poison_not_dead_lettered": "poison messages still pending (tried without end) or delivered",
        "poison_tried_past_limit": "claims of poison messages beyond their max_attempts",
        "backoff_ignored": "refused messages claimed again before their backoff ended",
        "healthy_lost": "healthy messages never delivered",
        "healthy_dead_lettered": "healthy messages dead-lettered",
        "dead_letters_unlisted": "dead-lettered messages dead_letters or health_dead_letters did not show",
        "crash_points_missed": "poison kinds never tried (the consumer never refused, no relay died)",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def _messages(ctx: ScenarioContext) -> list[Row]:
    return ctx.observer.child_rows("outbox", NAME)


def _settled(ctx: ScenarioContext) -> bool:
    """Healthy ones delivered, poison ones dead-lettered or plainly over their limit."""
    for message in _messages(ctx):
        if message["topic"] == HEALTHY and message["delivered_at"] is None:
            return False
        pending = message["topic"] != HEALTHY and message["dead_at"] is None
        if pending and message["delivery_attempts"] <= message["max_attempts"]:
            return False
    return True


def _progress(ctx: ScenarioContext) -> tuple[Any, ...]:
    return tuple(
        sorted(
            (str(m["message_id"]), m["delivery_attempts"], m["delivered_at"] is None) for m in _messages(ctx)
        )
    )


def observe(ctx: ScenarioContext, deaths: int, shown: dict[str, Any]) -> dict[str, Any]:
    journal = ctx.journal()
    messages = {str(m["message_id"]): m for m in _messages(ctx)}
    poison = {k: m for k, m in messages.items() if m["topic"] != HEALTHY}
    healthy = {k: m for k, m in messages.items() if m["topic"] == HEALTHY}
    claims = Counter(line["message"] for line in journal if line["kind"] == "claimed")
    delivered = {line["message"] for line in journal if line["kind"] == "delivered"}
    dead = {k for k, m in messages.items() if m["dead_at"] is not None}
    return {
        "messages": len(messages),
        "poison": len(poison),
        "relays_replaced": deaths,
        "refusals": sum(1 for line in journal if line["kind"] == "refused"),
        "dead_lettered": len(dead),
        "poison_not_dead_lettered": len(set(poison) - dead),
        "poison_tried_past_limit": sum(max(0, claims[k] - m["max_attempts"]) for k, m in poison.items()),
        "backoff_ignored": _early_claims(journal),
        "healthy_lost": len(set(healthy) - delivered),
        "healthy_dead_lettered": len(set(healthy) & dead),
        "dead_letters_unlisted": len(dead - set(shown["listed"])) + max(0, len(dead) - shown["counted"]),
        "crash_points_missed": sum(
            1 for kind in ("refused", "crash") if not any(line["kind"] == kind for line in journal)
        ),
        "errors": errors(journal),
    }


def _early_claims(journal: list[dict[str, Any]]) -> int:
    """Claims of a refused message before the wait its refusal set had passed."""
    due: dict[str, float] = {}
    early = 0
    for line in journal:
        if line["kind"] == "refused":
            due[line["message"]] = line["at"] + line["wait"]
        elif line["kind"] == "claimed" and line["message"] in due:
            early += int(line["at"] + SLACK < due.pop(line["message"]))
    return early


def work_relay(w: WorkerContext, tenants: Sequence[Any] = ()) -> dict[str, int]:
    """Claim a batch; refuse the refused kind (fail_delivery), die on the crashing kind,
    deliver and acknowledge the healthy ones."""
    relay_id = f"relay-{w.slot}-{w.new_token()[-8:]}"
    counts = {"batches": 0, "acked": 0, "refused": 0}
    rt = w.runtime(None)
    while not w.stop.is_set():
        try:
            batch = steps.relay_claim(w, rt, relay_id, BATCH, tenants)
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "relay_claim", error)
            continue
        if not batch:
            steps.pause(w.rng.uniform(0.02, 0.05))
            continue
        counts["batches"] += 1
        for message in batch:
            w.journal.write("claimed", message=str(message["message_id"]))
        # healthy ones first, the one that kills the relay last: a crash must not make
        # the healthy messages of its batch pay attempts for it
        for message in sorted(batch, key=lambda m: _ORDER[m["topic"]]):
            _handle(w, rt, relay_id, message, counts)
    return counts


_ORDER = {HEALTHY: 0, REFUSED: 1, CRASHING: 2}


def work_list(w: WorkerContext) -> dict[str, Any]:
    """What an operator sees: the dead letters listed, and the health check's count."""
    rt = w.runtime(None)
    listed = [str(m["message_id"]) for m in rt.call("dead_letters", limit=10_000)]
    health = rt.call("health_dead_letters")
    w.conn.commit()
    return {"listed": listed, "counted": int(health["dead_letters"]) if health else 0}


def _handle(w: WorkerContext, rt: Any, relay_id: str, message: Row, counts: dict[str, int]) -> None:
    key = {
        **w.scope(message[w.tenant_column] if w.tenant_column else None),
        "message_id": message["message_id"],
    }
    try:
        if message["topic"] == CRASHING:
            w.armed = True
            w.maybe_crash("poison")  # the relay dies delivering it: its claim lapses
        if message["topic"] == REFUSED:
            failed = rt.call(
                "fail_delivery",
                **key,
                relay_id=relay_id,
                error="consumer refused it",
                backoff_seconds=BACKOFF_SECONDS,
            )
            w.conn.commit()
            if failed is not None:
                wait = 0.0 if failed["dead"] else backoff_wait(BACKOFF_SECONDS, failed["delivery_attempts"])
                w.journal.write("refused", message=str(message["message_id"]), wait=wait, dead=failed["dead"])
                counts["refused"] += 1
            return
        w.journal.write("delivered", message=str(message["message_id"]))
        counts["acked"] += rt.call("mark_delivered", **key, relay_id=relay_id)
        w.conn.commit()
    except psycopg.Error as error:
        steps.failed(w, "relay", error)
