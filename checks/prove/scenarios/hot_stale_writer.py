"""Hot stale writer: worker A claims a run, publishes its projection to Redis, then stalls
past its lease. Worker B takes the run over in PostgreSQL and publishes its own. A wakes
up and writes to Redis as if it still held the run: progress with a higher write count
than B's, a heartbeat, and (knowing B's fencing token, not B's lease token) progress under
B's token. Every one must be refused by the Lua scripts' fencing, in one server-side step;
B's projection must stay B's. B then ends its runs: half complete (PostgreSQL first, then
the terminal projection), half are cancelled (transition_run, then the cancel flag), and
B's next heartbeat must say so; A's writes after that must be refused too.

Observed: what each stale write returned (journal), B's projection read back before and
after A's writes, and B's heartbeat after each cancellation.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import agentddl.checks.prove.hot as hot
import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors, share
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "hot_stale_writer"
HOLD_SECONDS = 120  # B's lease: B must not lose the run while A writes
STALE_WRITES = 4  # per run, what _stale_writes tries: 3 while B holds it, 1 after B ended it


def run(ctx: ScenarioContext) -> ScenarioResult:
    tenant = ctx.tenants[0]
    count = ctx.options.stale_runs
    stale, fresh, held, taken = ctx.stall_and_take_over(tenant, count, HOLD_SECONDS)
    # A's latest claim of each run (a claim takes over an expired lease, A's own included)
    a_claims = list({str(c["run_id"]): c for result in held.all_results() for c in result["claims"]}.values())
    b_claims = {str(c["run_id"]): c for result in taken.all_results() for c in result["claims"]}
    pairs = [(a, b_claims[str(a["run_id"])]) for a in a_claims if str(a["run_id"]) in b_claims]
    writes = ctx.dispatch({s: ctx.task("stale_writes", pairs=share(pairs, stale, s)) for s in stale})
    ending = [{**c, "cancel": n % 2 == 1} for n, c in enumerate(b_claims.values())]
    ends = ctx.dispatch({s: ctx.task("end", claims=share(ending, fresh, s)) for s in fresh})
    late = ctx.dispatch({s: ctx.task("late_writes", pairs=share(pairs, stale, s)) for s in stale})
    counts = _observe(ctx, count, len(pairs))
    counts["worker_failures"] = sum(len(d.failures) for d in (held, taken, writes, ends, late))
    ctx.hot.forget([r["run_id"] for r in ctx.observer.runs(NAME)])
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=11,
    hot=True,
    guarded={
        "not_taken_over": "stalled runs no other worker took over",
        "stale_writes_accepted": "Redis writes of a taken-over worker, or under a token it lacks, accepted",
        "stale_writes_missing": "stale Redis writes never tried (nothing was proven)",
        "newer_projection_damaged": "runs whose newer projection was not the newer holder's afterwards",
        "cancel_missed": "cancelled runs whose holder's next heartbeat did not say cancelled",
        "errors": "named queries or Redis calls that raised",
        "worker_failures": "workers that failed",
    },
)


def _observe(ctx: ScenarioContext, count: int, pairs: int) -> dict[str, Any]:
    journal = ctx.journal()
    writes = [line for line in journal if line["kind"] == "stale_write"]
    ended = [line for line in journal if line["kind"] == "ended"]
    return {
        "runs": count,
        "takeovers": pairs,
        "not_taken_over": count - pairs,
        "stale_writes_attempted": len(writes),
        "stale_writes_accepted": sum(1 for line in writes if line["accepted"]),
        "stale_writes_missing": max(0, count * STALE_WRITES - len(writes)),
        "newer_projection_damaged": sum(1 for line in ended if not line["intact"]),
        "cancelled": sum(1 for line in ended if line["how"] == "cancelled"),
        "cancel_missed": sum(1 for line in ended if line["how"] == "cancelled" and not line["seen"]),
        "runs_completed": ctx.completed_runs(),
        "errors": errors(journal),
    }


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """A: claim, publish the projection; then stall (return the claims and write counts)."""
    held = []
    for claim in steps.claims(w, tenant):
        holder = hot.hold(w, claim)
        holder.progress("a-step", 10)
        held.append({**claim, "hot_version": holder.version})
    return {"claims": held}


def work_take_over(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """B: poll until the stalled leases run out, take the runs over, publish; hold them."""
    taken = []
    for claim in steps.claims(w, tenant, poll=0.05):
        holder = hot.hold(w, claim)
        outcome = holder.progress("b-step", 50)
        taken.append({**claim, "hot_version": holder.version, "published": outcome == "ok"})
    return {"claims": taken}


def work_stale_writes(w: WorkerContext, pairs: list[tuple[Row, Row]]) -> dict[str, Any]:
    """A wakes up while B holds the run: every Redis write it tries, journaled."""
    module, state = hot.worker_hot(w)
    for a, b in pairs:
        mine = module.Claim.from_row(a, a["lease_token"])
        borrowed = module.Claim.from_row(b, a["lease_token"])  # B's fencing token, A's lease token
        version = int(a["hot_version"]) + 100  # "newer" than anything B wrote
        tries = [
            ("progress", partial(state.publish, mine, version, "running", "a-late", 90)),
            ("heartbeat", partial(state.renew, mine)),
            ("borrowed_token", partial(state.publish, borrowed, version, "running", "a-late", 90)),
        ]
        _journal_writes(w, a, tries)
    return {}


def work_late_writes(w: WorkerContext, pairs: list[tuple[Row, Row]]) -> dict[str, Any]:
    """A again, after B ended the run: a write under B's fencing token must find it final."""
    module, state = hot.worker_hot(w)
    for a, b in pairs:
        borrowed = module.Claim.from_row(b, b["lease_token"])  # even with B's lease token
        version = int(b["hot_version"]) + 100
        _journal_writes(w, a, [("after_end", partial(state.publish, borrowed, version, "running", "x", 1))])
    return {}


def _journal_writes(w: WorkerContext, claim: Row, tries: list[tuple[str, Any]]) -> None:
    for what, write in tries:
        try:
            outcome = write()
        except Exception as error:  # a Redis error: not an acceptance, but journaled
            w.journal.write("error", what=f"hot_{what}", sqlstate=None, message=str(error)[:300])
            outcome = "error"
        w.journal.write("stale_write", run=str(claim["run_id"]), what=what, accepted=outcome == "ok")


def work_end(w: WorkerContext, claims: list[Row]) -> dict[str, Any]:
    """B: its projection must still be its own; then every other run completes (PostgreSQL,
    then the terminal projection) and the rest are cancelled (transition_run, then the
    cancel flag), after which B's next heartbeat must say cancelled."""
    _, state = hot.worker_hot(w)
    for claim in claims:
        seen = state.read(str(claim["run_id"]))
        intact = (
            bool(claim["published"])
            and seen.get("fencing_token") == str(claim["fencing_token"])
            and seen.get("current_step") == "b-step"
        )
        ending = _cancel if claim["cancel"] else _complete
        how, noticed = ("cancelled" if claim["cancel"] else "completed"), ending(w, claim)
        w.journal.write("ended", run=str(claim["run_id"]), how=how, intact=intact, seen=noticed)
    return {}


def _complete(w: WorkerContext, claim: Row) -> bool:
    holder = hot.hold(w, claim)
    holder.version = int(claim["hot_version"])
    return hot.complete(w, claim, holder) == "completed"


def _cancel(w: WorkerContext, claim: Row) -> bool:
    """The API's cancellation: the durable transition first, then the flag; the holder's
    next heartbeat must see it without asking PostgreSQL."""
    rt = w.runtime(steps.tenant_of(w, claim))
    _, state = hot.worker_hot(w)
    cancelled = rt.call(
        "transition_run",
        **w.scope(steps.tenant_of(w, claim)),
        run_id=claim["run_id"],
        expected_version=claim["version"],
        to_status="cancelled",
    )
    w.conn.commit()
    if cancelled is None:
        return False
    state.cancel(str(claim["run_id"]))
    holder = hot.hold(w, claim)
    holder.version = int(claim["hot_version"])
    return bool(holder.beat() == "cancelled")
