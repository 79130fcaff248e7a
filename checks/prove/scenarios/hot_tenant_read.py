"""Hot tenant read: runs of two tenants are held, each with its projection in Redis.
A worker serving tenant A then reads runs the way an API does (the generated module's
`view`, with `get_run` for A as the loader), against projections a careless or hostile
writer could leave: tenant B's runs with their own projections, B's runs whose projection
names tenant A (a key or hash that merely contains a tenant id), A's runs whose projection
names B or carries an older fencing token. Nothing of B's may come back, and no projection
that is not this claim's of this tenant may be shown; A's own intact projections must be
(else the read path proved nothing). Single-tenant profiles keep the probes of their own
runs.

Observed: what each read returned, journaled by the probing worker.
"""

from __future__ import annotations

from typing import Any

import agentddl.checks.prove.hot as hot
import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "hot_tenant_read"
HOLD_SECONDS = 120  # nothing may be taken over while the probes run
OWN_RUNS = 3  # intact, foreign tenant, older fencing token
OTHER_RUNS = 2  # intact, naming the reader's tenant


def run(ctx: ScenarioContext) -> ScenarioResult:
    reader = ctx.slots[0]
    mine = ctx.tenant_of_slot(reader)
    others = [t for t in ctx.tenants if t != mine][:1]
    plans = [(mine, {"own": True}) for _ in range(OWN_RUNS)] + [
        (t, {}) for t in others for _ in range(OTHER_RUNS)
    ]
    runs = ctx.observer.start_runs(NAME, plans)
    holders = _holder_slots(ctx, [mine, *others])
    watch = Watch(
        finished=lambda: ctx.observer.live_queued(NAME) == 0,
        progress=lambda: ctx.observer.progress(NAME),
        stall_seconds=ctx.options.stall_seconds,
    )
    held = ctx.dispatch(
        {s: ctx.task("hold", lease=HOLD_SECONDS, tenant=t) for s, t in holders.items()}, watch
    )
    claims = [c for result in held.all_results() for c in result["claims"]]
    probes = _corrupt(ctx, mine, claims)
    probed = ctx.dispatch({reader: ctx.task("probe", lease=HOLD_SECONDS, tenant=mine, probes=probes)})
    counts = _observe(ctx, len(runs), len(probes), bool(others))
    counts["worker_failures"] = len(held.failures) + len(probed.failures)
    ctx.hot.forget([r["run_id"] for r in runs])
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=14,
    hot=True,
    guarded={
        "probes_missing": "runs never held and probed (nothing was proven)",
        "hot_reads_leaked": "reads that returned another tenant's run or projection",
        "mismatched_projection_served": "projections shown though not this claim's of this tenant",
        "own_projection_not_served": "intact projections of the reader's own runs not shown "
        "(read path unproven)",
        "errors": "named queries or Redis calls that raised",
        "worker_failures": "workers that failed",
    },
)


def _holder_slots(ctx: ScenarioContext, tenants: list[Any]) -> dict[int, Any]:
    """A slot per tenant (under row-level security a worker's session serves one tenant)."""
    found: dict[int, Any] = {}
    for tenant in tenants:
        found[next(s for s in ctx.slots if ctx.tenant_of_slot(s) == tenant and s not in found)] = tenant
    return found


def _corrupt(ctx: ScenarioContext, mine: Any, claims: list[Row]) -> list[dict[str, Any]]:
    """Leave each run's projection intact or corrupt it; the probe each run gets."""
    own = [c for c in claims if c["input"].get("own")]
    other = [c for c in claims if not c["input"].get("own")]
    probes = []
    for claim, kind in zip(own, ("own_intact", "own_foreign_tenant", "own_older_fence"), strict=False):
        if kind == "own_foreign_tenant":
            ctx.hot.corrupt(claim["run_id"], tenant=f"{mine}-not")
        elif kind == "own_older_fence":
            ctx.hot.corrupt(claim["run_id"], fencing_token=int(claim["fencing_token"]) - 1)
        probes.append({"kind": kind, "run_id": str(claim["run_id"])})
    for claim, kind in zip(other, ("other_intact", "other_naming_reader"), strict=False):
        if kind == "other_naming_reader":
            ctx.hot.corrupt(claim["run_id"], tenant="" if mine is None else mine)
        probes.append({"kind": kind, "run_id": str(claim["run_id"])})
    return probes


def _observe(ctx: ScenarioContext, runs: int, probes: int, tenants: bool) -> dict[str, Any]:
    journal = ctx.journal()
    seen = [line for line in journal if line["kind"] == "hot_probe"]

    def kinds(*names: str) -> list[dict[str, Any]]:
        return [line for line in seen if line["probe"] in names]

    return {
        "runs": runs,
        "probes": len(seen),
        "probes_missing": runs - len(seen),
        "hot_reads_leaked": sum(
            1 for line in kinds("other_intact", "other_naming_reader") if line["returned"]
        ),
        "mismatched_projection_served": sum(
            1 for line in kinds("own_foreign_tenant", "own_older_fence") if line["served"]
        ),
        "own_projection_not_served": sum(1 for line in kinds("own_intact") if not line["served"]),
        "other_tenant_probed": tenants,
        "errors": errors(journal),
    }


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim runs and publish their projections; hold them (no heartbeat needed: long lease)."""
    held = []
    for claim in steps.claims(w, tenant):
        hot.hold(w, claim).progress("working", 42, {"secret": "of this run's tenant"})
        held.append(claim)
    return {"claims": held}


def work_probe(w: WorkerContext, tenant: Any, probes: list[dict[str, Any]]) -> dict[str, Any]:
    """Read each run as tenant `tenant`'s API would: PostgreSQL (get_run) via the module."""
    _, state = hot.worker_hot(w)
    rt = w.runtime(tenant)
    for probe in probes:

        def load(run_id: str = probe["run_id"]) -> Row | None:
            found: Row | None = rt.call("get_run", **w.scope(tenant), run_id=run_id)
            w.conn.commit()
            return found

        try:
            view = state.view("" if tenant is None else tenant, probe["run_id"], load)
        except Exception as error:  # journaled as an error, not as a leak
            w.journal.write("error", what="hot_view", sqlstate=None, message=str(error)[:300])
            w.reconnect_if_broken()
            view = None
        served = bool(view and view.get("hot"))
        w.journal.write(
            "hot_probe", probe=probe["kind"], run=probe["run_id"], returned=view is not None, served=served
        )
    return {}
