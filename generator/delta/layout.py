"""The steps of a layout upgrade (model/layout.py) that no catalog difference yields:
layout 1 -> 2 fills the new live set (run_queue) with the live runs, in batches."""

from __future__ import annotations

from agentddl.generator.delta.types import Step
from agentddl.generator.model import SchemaModel
from agentddl.generator.model.layout import LIVE_SET
from agentddl.generator.model.names import quote
from agentddl.generator.sqltemplate import render_sql

BACKFILL_BATCH = 1000
LIVE_STATUSES = "('queued', 'running', 'waiting')"


def layout_changes(old: int, new: int) -> tuple[str, ...]:
    if old == new:
        return ()
    return (f"layout: {old} -> {new} (the live set out of the run row)",)


def layout_steps(new: SchemaModel, old_layout: int) -> tuple[Step, ...]:
    if old_layout >= LIVE_SET or new.layout < LIVE_SET:
        return ()
    return (_live_set_backfill(new),)


def layout_notes(old_layout: int, new_layout: int) -> tuple[str, ...]:
    if old_layout >= LIVE_SET or new_layout < LIVE_SET:
        return ()
    return (
        "Worker cut-over (old and new workers never both claim): stop the workers and the "
        "starters that run the old queries.sql (let their transactions finish); apply this "
        "revision, which creates run_queue, fills it with every queued, waiting and running "
        "run (a running one keeps its lease and fencing token: the new workers take it over "
        "once that lease lapses; counters start at the history's last seq), "
        "then drops the old claim and lease indexes; deploy the new queries.sql and start "
        "the workers. The old queries never read run_queue and the new ones never claim "
        "from runs, so the only rule is that no old worker runs once the revision applied.",
        "Downgrade: the run rows keep their status, token and counters (every query still "
        "mirrors them there), so dropping run_queue loses nothing; stop the new workers "
        "first and deploy the old queries.sql after it.",
    )


def _live_set_backfill(model: SchemaModel) -> Step:
    schema = quote(model.schema)
    tenant = model.profile.tenancy.column
    keys = [tenant, "run_id"] if tenant else ["run_id"]

    def join(left: str, right: str) -> str:
        return " AND ".join(f"{left}.{k} = {right}.{k}" for k in keys)

    columns = ", ".join([*keys, "run_created_at", "state", "priority", "visible_at", "max_attempts",
                         "attempt_no", "fencing_token", "lease_token_hash", "worker_id", "event_seq",
                         "checkpoint_seq"])  # fmt: skip
    held = "r.status = 'running' AND a.run_id IS NOT NULL"
    insert = f"""INSERT INTO {schema}.run_queue ({columns})
            SELECT {", ".join(f"r.{k}" for k in keys)}, r.created_at,
                CASE WHEN r.status = 'running' AND a.run_id IS NULL THEN 'queued' ELSE r.status END,
                r.priority,
                CASE WHEN r.status = 'waiting' THEN 'infinity'::timestamptz
                     WHEN {held} THEN a.lease_expires_at ELSE r.wake_at END,
                r.max_attempts, r.attempt_count, r.fencing_token,
                CASE WHEN {held} THEN a.lease_token_hash END,
                CASE WHEN {held} THEN a.worker_id END,
                coalesce((SELECT max(e.seq) FROM {schema}.events AS e
                          WHERE {join("e", "r")} AND e.run_created_at = r.created_at), 0),
                coalesce((SELECT max(k.seq) FROM {schema}.checkpoints AS k
                          WHERE {join("k", "r")} AND k.run_created_at = r.created_at), 0)
            FROM {schema}.runs AS r
            LEFT JOIN {schema}.attempts AS a
                ON {join("a", "r")} AND a.status = 'active' AND a.fencing_token = r.fencing_token
            WHERE r.status IN {LIVE_STATUSES}
                AND NOT EXISTS (SELECT FROM {schema}.run_queue AS q WHERE {join("q", "r")})
            ORDER BY r.created_at
            LIMIT {BACKFILL_BATCH}"""
    loop = render_sql("batched_loop", statement=insert)  # a batch per transaction until none is left
    return Step(
        phase="switch",
        summary=f"fill {model.schema}.run_queue with every live run, {BACKFILL_BATCH} at a time",
        statements=(loop,),
        run="plain",
        lock="ROW EXCLUSIVE",
        tables=(f"{model.schema}.run_queue",),
        work="backfill",
        rollback=f"nothing: the downgrade drops {model.schema}.run_queue",
    )
