"""6. Tenant isolation: a worker whose session belongs to tenant A aims every named query
at tenant B's runs, checkpoints, events, operations and messages, with B's keys and
fencing tokens: it must read nothing and change nothing of B's. With row-level security
on, it also passes B's tenant id (the database, not the query, must refuse it), and the
coordinator tries raw SQL as the app role; the worker's connection, after a committed
transaction of tenant A, serves a transaction that names no tenant (as a
transaction-mode pooler hands a server connection to the next client): it must see no
rows; and the tables' owner, in a session naming tenant A, must see none of B's. Then a
third tenant is deleted, and its rows must be gone (on_tenant_delete: cascade) or the
delete refused and every row kept (restrict), with the other tenants' rows untouched.

Observed: what each probe returned, a digest of B's rows before and after, row counts
per table around the deletion.
"""

from __future__ import annotations

import contextlib
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import CHILD_TABLES, PROVE_KIND
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.scenarios.tenant_probes import probes
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "tenant_isolation"
RUNS_PER_TENANT = 3
HOLD_SECONDS = 120
TABLES = ("runs", *CHILD_TABLES)


def run(ctx: ScenarioContext) -> ScenarioResult:
    if not ctx.model.profile.tenancy.column:
        return ctx.result({"applicable": False}, {})
    a, b = ctx.tenants[0], ctx.tenants[1]
    (c,) = ctx.observer.create_tenants(1)
    ctx.observer.start_runs(NAME, [(t, {}) for t in (a, b, c) for _ in range(RUNS_PER_TENANT)])
    populate = _populate(ctx, [a, b, c])
    ctx.observer.start_runs(NAME, [(a, {"prober": True})] + ([(b, {"queued": True})] if ctx.rls else []))
    targets = _targets(ctx, b, _lease_tokens(populate))
    before = _digest(ctx, b)
    probe = ctx.dispatch({ctx.slots[0]: ctx.task("probe", lease=HOLD_SECONDS, a=a, b=b, targets=targets)})
    journal = ctx.journal()
    counts: dict[str, Any] = {
        "probes": sum(1 for line in journal if line["kind"] == "probe"),
        "probe_leaks": sum(1 for line in journal if line["kind"] == "probe" and line["leaked"]),
        "targets_without_history": RUNS_PER_TENANT - sum(1 for t in targets if _has_history(t)),
        "other_tenant_changed": int(_digest(ctx, b) != before),
        "raw_sql_checked": ctx.rls,
        "raw_sql_leaks": _raw_sql_leaks(ctx, a, b) if ctx.rls else 0,
        "pooled_session_leaks": sum(int(r.get("pooled_leaks", 0)) for r in probe.all_results()),
        "owner_leaks": _owner_leaks(ctx, a) if ctx.rls else 0,
        "errors": errors(journal),
    }
    deletion = _delete_tenant(ctx, c, others=(a, b))
    counts["deleted_tenant_rows"], counts["deletion_mismatches"], counts["deletion_untested"] = deletion
    counts["worker_failures"] = len(populate.failures + probe.failures)
    policy = ctx.model.profile.tenancy.on_tenant_delete
    mismatches = f"{SCENARIO.guarded['deletion_mismatches']}: {policy}"  # the policy it was held to
    return ctx.result(counts, {**SCENARIO.guarded, "deletion_mismatches": mismatches})


SCENARIO = Scenario(
    NAME,
    order=8,
    guarded={
        "probe_leaks": "named-query probes that read or changed another tenant's rows",
        "targets_without_history": "the other tenant's runs left without history to probe",
        "deletion_untested": "tables where the deleted tenant had no rows (nothing to delete)",
        "other_tenant_changed": "the other tenant's rows changed",
        "raw_sql_leaks": "raw SQL as the app role that saw or changed another tenant's rows",
        "pooled_session_leaks": "tables a tenant-less transaction saw rows of, on a connection "
        "whose previous transaction named a tenant (a pooled server connection)",
        "owner_leaks": "tables where the owner role, naming one tenant, saw another's rows",
        "deletion_mismatches": "tables whose rows did not follow on_tenant_delete",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed",
    },
)


def _populate(ctx: ScenarioContext, tenants: list[Any]) -> Any:
    """Workers claim every run and give it history: an event, a checkpoint, a completed
    operation and a message; the runs stay running, their attempts active."""
    served = {
        s: tenants[i :: len(ctx.slots)] for i, s in enumerate(ctx.slots) if tenants[i :: len(ctx.slots)]
    }
    watch = Watch(
        finished=lambda: ctx.observer.live_queued(NAME) == 0,
        progress=lambda: ctx.observer.progress(NAME),
        stall_seconds=ctx.options.stall_seconds,
    )
    return ctx.dispatch(
        {s: ctx.task("populate", lease=HOLD_SECONDS, tenants=t) for s, t in served.items()}, watch
    )


def _lease_tokens(populate: Any) -> dict[str, str]:
    return {run: token for result in populate.all_results() for run, token in result["tokens"].items()}


def _targets(ctx: ScenarioContext, tenant: Any, tokens: dict[str, str]) -> list[Row]:
    """B's rows as an attacker who learned every key and token would name them; B's first
    run is made the parent of its second (so a leaking child_runs has something to show)."""
    found = _target_rows(ctx, tenant)
    running = [t for t in found if t["status"] == "running"]
    if len(running) >= 2:
        ctx.observer.rows(
            sql.SQL("UPDATE {} SET parent_run_id = %s WHERE run_id = %s").format(ctx.observer.table("runs")),
            [running[0]["run_id"], running[1]["run_id"]],
        )
    return [{**t, "lease_token": tokens.get(str(t["run_id"]))} for t in found]


def _target_rows(ctx: ScenarioContext, tenant: Any) -> list[Row]:
    column = sql.Identifier(ctx.model.profile.tenancy.column or "")
    return ctx.observer.rows(
        sql.SQL(
            "SELECT r.run_id, r.created_at AS run_created_at, r.version, r.fencing_token, r.status, "
            "(SELECT o.idempotency_key FROM {ops} AS o "
            "WHERE o.{col} = r.{col} AND o.run_id = r.run_id LIMIT 1) AS key, "
            "(SELECT m.message_id FROM {outbox} AS m "
            "WHERE m.{col} = r.{col} AND m.run_id = r.run_id LIMIT 1) AS message_id "
            "FROM {runs} AS r WHERE r.{col} = %s AND {mine} ORDER BY r.created_at, r.run_id"
        ).format(
            ops=ctx.observer.table("operations"),
            outbox=ctx.observer.table("outbox"),
            runs=ctx.observer.table("runs"),
            col=column,
            mine=ctx.observer.scenario_runs(NAME),
        ),
        [tenant],
    )


def _digest(ctx: ScenarioContext, tenant: Any) -> list[Any]:
    column = sql.Identifier(ctx.model.profile.tenancy.column or "")
    return [
        ctx.observer.one(
            sql.SQL(
                "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS d "
                "FROM {} AS t WHERE t.{} = %s"
            ).format(ctx.observer.table(table), column),
            [tenant],
        )["d"]
        for table in TABLES
    ]


def _counts(ctx: ScenarioContext, tenant: Any) -> list[int]:
    column = sql.Identifier(ctx.model.profile.tenancy.column or "")
    return [
        int(
            ctx.observer.one(
                sql.SQL("SELECT count(*) AS n FROM {} WHERE {} = %s").format(ctx.observer.table(t), column),
                [tenant],
            )["n"]
        )
        for t in ("tenants", *TABLES)
    ]


def _raw_sql_leaks(ctx: ScenarioContext, a: Any, b: Any) -> int:
    """As the app role with tenant A's session: B's rows must be invisible and untouchable,
    and with no tenant in the session, every row is."""
    observer, column = ctx.observer, sql.Identifier(ctx.model.profile.tenancy.column or "")
    leaks = 0
    with observer.as_role("app", a):
        for table in ("tenants", *TABLES):
            seen = observer.one(
                sql.SQL("SELECT count(*) AS n FROM {} WHERE {} <> %s").format(observer.table(table), column),
                [a],
            )
            leaks += int(seen["n"] > 0)
        updated = observer.conn.execute(
            sql.SQL("UPDATE {} SET priority = priority WHERE {} = %s").format(observer.table("runs"), column),
            [b],
        )
        leaks += int(updated.rowcount > 0)
        leaks += _insert_for(ctx, b)
        observer.set_tenant(None)
        seen = observer.one(sql.SQL("SELECT count(*) AS n FROM {}").format(observer.table("runs")))
        leaks += int(seen["n"] > 0)
    return leaks


def _owner_leaks(ctx: ScenarioContext, a: Any) -> int:
    """The tables' owner in a session that names tenant A: every table must show A's rows
    only (FORCE ROW LEVEL SECURITY; without it a table's owner skips every policy)."""
    observer, column = ctx.observer, sql.Identifier(ctx.model.profile.tenancy.column or "")
    leaks = 0
    with observer.as_role("owner", a):
        for table in ("tenants", *TABLES):
            seen = observer.one(
                sql.SQL("SELECT count(*) AS n FROM {} WHERE {} <> %s").format(observer.table(table), column),
                [a],
            )
            leaks += int(seen["n"] > 0)
    return leaks


def _insert_for(ctx: ScenarioContext, tenant: Any) -> int:
    try:
        ctx.observer.conn.execute(
            sql.SQL("INSERT INTO {} ({}, kind, input) VALUES (%s, %s, %s)").format(
                ctx.observer.table("runs"), sql.Identifier(ctx.model.profile.tenancy.column or "")
            ),
            [tenant, PROVE_KIND, Jsonb({"scenario": NAME})],
        )
    except psycopg.Error:
        return 0  # refused: row-level security's WITH CHECK
    return 1


def _has_history(target: Row) -> bool:
    return bool(target["status"] == "running" and target["key"] and target["message_id"])


def _delete_tenant(ctx: ScenarioContext, tenant: Any, others: tuple[Any, ...]) -> tuple[int, int, int]:
    """Delete the tenant as the owner: (its rows before, how many tables did not follow
    the policy, or changed for the other tenants, in how many it had no row to delete)."""
    before, others_before = _counts(ctx, tenant), [_counts(ctx, o) for o in others]
    column = sql.Identifier(ctx.model.profile.tenancy.column or "")
    # restrict refuses the delete; cascade must not
    with ctx.observer.as_role("owner"), contextlib.suppress(psycopg.Error):
        ctx.observer.conn.execute(
            sql.SQL("DELETE FROM {} WHERE {} = %s").format(ctx.observer.table("tenants"), column),
            [tenant],
        )
    after = _counts(ctx, tenant)
    wanted = [0] * len(before) if ctx.model.profile.tenancy.on_tenant_delete == "cascade" else before
    mismatches = sum(1 for got, want in zip(after, wanted, strict=True) if got != want)
    changed = sum(1 for o, was in zip(others, others_before, strict=True) if _counts(ctx, o) != was)
    return sum(before), mismatches + changed, before.count(0)


def work_populate(w: WorkerContext, tenants: list[Any]) -> dict[str, Any]:
    tokens = {}
    while not w.stop.is_set():
        claims = [steps.claim_next(w, t) for t in tenants]
        for claim in (c for c in claims if c is not None):
            if _give_history(w, claim):
                tokens[str(claim["run_id"])] = claim["lease_token"]
        if not any(claims):
            steps.pause(0.02)
    return {"tokens": tokens}


def _give_history(w: WorkerContext, claim: Row) -> int:
    rt = w.runtime(steps.tenant_of(w, claim))
    scope = w.scope(steps.tenant_of(w, claim))
    key = f"iso-{claim['run_id']}"
    try:
        steps.write_step(w, claim, 1)
        rt.call(
            "reserve_operation",
            **steps.fence(w, claim),
            idempotency_key=key,
            input_hash=b"\1" * 32,
        )
        steps.record_operation(w, claim, key, {"secret": key})
        rt.call(
            "enqueue_outbox", **scope, run_id=claim["run_id"], topic="run.step", payload=Jsonb({"k": key})
        )
        w.conn.commit()
    except psycopg.Error as error:
        steps.failed(w, "populate", error)
        return 0
    return 1


def work_probe(w: WorkerContext, a: Any, b: Any, targets: list[Row]) -> dict[str, int]:
    """Tenant A's session aims every named query at B's rows; each probe is journaled."""
    own = steps.claim_next(w, a)
    for name, probe in probes(w, a, b, targets, own):
        try:
            leaked = bool(probe())
            w.conn.rollback()  # a probe that got through must not commit (B's digest must not move)
        except psycopg.Error as error:
            steps.failed(w, name, error)
            leaked = False
        w.journal.write("probe", what=name, leaked=leaked)
    pooled = _pooled_leaks(w, a, own) if w.rls and own is not None else 0
    return {"own_claim": int(own is not None), "pooled_leaks": pooled}


def _pooled_leaks(w: WorkerContext, a: Any, own: Row) -> int:
    """Tenant A's transaction commits on this connection; the next one (a pooler's next
    client) names no tenant and reads every table as the app role: it must see nothing,
    so A's tenant must have ended with A's transaction."""
    w.runtime(a).call("get_run", **w.scope(a), run_id=own["run_id"])
    w.conn.commit()
    app = w.model.profile.role("app")
    leaks = 0
    try:
        w.conn.execute("SELECT set_config('role', %s, true)", [app])
        for table in ("tenants", *TABLES):
            counted = w.conn.execute(
                sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(w.model.schema, table))
            ).fetchone()
            leaks += int(bool(counted and counted["n"]))
    finally:
        w.conn.rollback()
    return leaks
