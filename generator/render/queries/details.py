"""The seeds' descriptive columns' writers (profile model.details): the run's current
step and an operation's action, provider reference and trace. Neither bumps a version
nor touches an indexed column, so both are HOT-eligible updates."""

from __future__ import annotations

from agentddl.generator.render.queries.base import LEASE_HASH, Ctx, Query, returning, where
from agentddl.generator.render.queries.history import fenced_params, fenced_run


def detail_queries(c: Ctx) -> tuple[Query, ...]:
    return (record_step(c), describe_operation(c)) if c.model.parts.details else ()


def record_step(c: Ctx) -> Query:
    # The live row is locked first (SHARE, the fence's lock order), the run only by the
    # UPDATE itself: a claim that took the run over meanwhile fails the re-check on r.
    fence = fenced_run(c).replace("\n", "\n    ")
    sql = f"""WITH fence AS (
    SELECT {c.cols("q", "run_id")}, q.fencing_token
    {fence}
)
UPDATE {c.t("runs")} AS r
SET current_step = CAST(:current_step AS text),
    updated_at = now()
FROM fence AS f
{where(c.join("r", "f", "run_id"), "r.fencing_token = f.fencing_token", "r.status = 'running'")}
{returning("r.current_step", "r.updated_at")}"""
    doc = (
        "Record the step the caller's run is at (seed 000's current_step), fenced: a stale",
        "or forged writer, or a run no longer running, gets no row. The run's version is",
        "not bumped (a step name is a description, not a state change) and no indexed",
        "column changes, so the update is HOT-eligible.",
        f"index: {c.path('record_step').index}; the live row by run_queue_pkey",
        "returns: current_step, updated_at; or no row",
    )
    return Query("record_step", "<!", doc, sql, params=(*fenced_params(c), "current_step text"))


def describe_operation(c: Ctx) -> Query:
    holder = (
        f"EXISTS (SELECT FROM {c.t('attempts')} AS a\n"
        f"        WHERE {c.join('a', 'o', 'run_id')} AND a.fencing_token = o.fencing_token\n"
        f"            AND a.lease_token_hash = {LEASE_HASH})"
    )
    sets = ",\n    ".join(
        f"{column} = coalesce(CAST(:{column} AS text), o.{column})"
        for column in ("action", "provider_reference", "trace_id", "span_id")
    )
    sql = (
        f"UPDATE {c.t('operations')} AS o\nSET {sets}\n"
        + where(
            c.match("o", "idempotency_key"),
            "o.run_id = CAST(:run_id AS uuid)",
            "o.fencing_token = CAST(:fencing_token AS bigint)",
            holder,
        )
        + "\n"
        + returning("o.action", "o.provider_reference", "o.trace_id", "o.span_id")
    )
    doc = (
        "Describe an operation (seed 000): its action, the provider's reference for the",
        "effect, its trace and span; a null parameter keeps the stored value. Only the",
        "attempt holding the reservation (run, fencing token, lease token by its hash),",
        "as complete_operation; else no row.",
        f"index: {c.path('describe_operation').index}; the attempt by attempts_pkey",
        "returns: action, provider_reference, trace_id, span_id; or no row",
    )
    params = (
        *c.tenant_param(),
        "idempotency_key text",
        "run_id uuid",
        "fencing_token bigint",
        "lease_token text",
        "action text|null",
        "provider_reference text|null",
        "trace_id text|null",
        "span_id text|null",
    )
    return Query("describe_operation", "<!", doc, sql, params=params)
