"""The INSERT ... SELECT that fills each table, built from the model's column list.

Each table has a row source (the per-run staging table `_seed_run` AS r, times a
generate_series AS s(n) for the run's children) and a value expression per known column.
A model column without an expression is left to its default when it has one (or is
nullable); a NOT NULL column with no default and no expression is an error, so a model
change that the seeder can't satisfy fails loudly instead of loading wrong rows.

Expressions are this module's own constants; the only profile-derived text is quoted
identifiers (schema, table, column names) and bound parameters (%(now)s, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, Table
from agentddl.generator.model.live import LIVE_STATES
from agentddl.generator.model.scope import sql_list

FINISHED_SQL = "('succeeded', 'failed', 'cancelled')"
LIVE_SQL = f"({sql_list(LIVE_STATES)})"  # the statuses of a run in the live set (run_queue)

# The key of tenant number n, per tenant key type.
TENANT_KEY = {
    "uuid": "md5('agentddl-tenant-' || {n})::uuid",
    "bigint": "({n})::bigint + 1",
    "text": "'tenant-' || {n}",
}


@dataclass(frozen=True)
class Source:
    """FROM ... for one table and the expressions of the columns it can fill."""

    from_sql: str
    values: dict[str, str]
    order_by: str = ""


LEASE = "%(lease)s * interval '1 second'"


def _sources(model: SchemaModel) -> dict[str, Source]:
    tenant_key = TENANT_KEY[model.profile.tenancy.type].format(n="s.n")
    tenants = {
        "tenant": tenant_key,
        "name": "'tenant ' || s.n",
        "created_at": "%(now)s - interval '400 days' + s.n * interval '1 minute'",
    }
    return {
        "tenants": Source("generate_series(0, %(tenants)s - 1) AS s(n)", tenants),
        "runs": Source("_seed_run AS r", _RUNS),
        **_lease_sources(),
        **_history_sources(),
        **_detail_sources(),
    }


def _lease_sources() -> dict[str, Source]:
    """The live set and the attempts: where a lease's expiry is."""
    return {
        # the live set: one row per queued, waiting or running run, counters at its history's end
        "run_queue": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, CASE WHEN r.status IN"
            f" {LIVE_SQL} THEN 1 ELSE 0 END) AS s(n)",
            {
                **_LIVE,
                "visible_at": (
                    "CASE WHEN r.status = 'waiting' THEN 'infinity'::timestamptz"
                    f" WHEN r.status = 'queued' THEN {_RUNS['wake_at']}"
                    " WHEN r.lease_expired THEN %(now)s - interval '10 seconds'"
                    f" ELSE %(now)s + {LEASE} END"
                ),
            },
        ),
        "attempts": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, r.attempts) AS s(n)"
            " CROSS JOIN LATERAL (SELECT r.created_at + (s.n - 1) * r.span / r.attempts"
            " AS started_at, s.n = r.attempts AND r.status = 'running' AS active) AS a",
            {
                **_ATTEMPTS,
                "lease_expires_at": (
                    f"CASE WHEN NOT a.active THEN a.started_at + {LEASE}"
                    " WHEN r.lease_expired THEN %(now)s - interval '10 seconds'"
                    f" ELSE %(now)s + {LEASE} END"
                ),
            },
        ),
    }


def _history_sources() -> dict[str, Source]:
    """A run's history: checkpoints, events, operations and outbox messages."""
    return {
        "checkpoints": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, r.checkpoints) AS s(n)"
            " CROSS JOIN LATERAL (SELECT jsonb_build_object('step', s.n, 'memo',"
            " 'state after step ' || s.n) AS doc, s.n %% 50 <> 0 AS inline) AS p",
            _CHECKPOINTS,
        ),
        "events": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, r.events) AS s(n)"
            " CROSS JOIN LATERAL (SELECT r.created_at + r.span * s.n / (r.events + 1)"
            " AS at) AS e",
            _EVENTS,
            order_by="e.at",  # events arrive in time order (BRIN on created_at relies on it)
        ),
        "operations": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, r.operations) AS s(n)"
            " CROSS JOIN LATERAL (SELECT r.status = 'running' AND s.n = r.operations AS pending,"
            " r.created_at + r.span * s.n / (r.operations + 1) AS at) AS o",
            _OPERATIONS,
        ),
        "outbox": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, r.outbox) AS s(n)"
            " CROSS JOIN LATERAL (SELECT coalesce(r.finished_at, r.created_at + interval '1 second')"
            " AS at) AS m",
            _OUTBOX,
        ),
    }


def _detail_sources() -> dict[str, Source]:
    """The optional detail tables: node executions, tool calls, notes and approvals."""
    return {
        # one node execution per operation slot (none for queued runs), one tool call each
        "node_executions": Source(_NODE_ROWS, _NODE_EXECUTIONS),
        "tool_calls": Source(_NODE_ROWS, _TOOL_CALLS),
        # every run that started: two notes (progress, then a finding) by its last attempt
        "attempt_notes": Source(
            "_seed_run AS r"
            " CROSS JOIN generate_series(1, CASE WHEN r.attempts > 0 THEN 2 ELSE 0 END) AS s(n)",
            _NOTES,
        ),
        # every seventh run that started asked for one approval: pending while it is live
        "approvals": Source(
            "_seed_run AS r CROSS JOIN generate_series(1, CASE WHEN r.i %% 7 = 0"
            " AND r.attempts > 0 THEN 1 ELSE 0 END) AS s(n)"
            " CROSS JOIN LATERAL (SELECT r.status IN ('running', 'waiting') AS pending,"
            " r.created_at + r.span / 2 AS at) AS a",
            _APPROVALS,
        ),
    }


_RUNS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "created_at": "r.created_at",
    "run_key": "CASE WHEN r.i %% 3 = 0 THEN 'seed-' || r.i END",
    "parent_run_id": "r.parent_run_id",
    "kind": "(ARRAY['research', 'support', 'coding', 'triage', 'review'])[1 + r.i %% 5]",
    "status": "r.status",
    "version": f"1 + 2 * r.attempts + CASE WHEN r.status IN {FINISHED_SQL} THEN 1 ELSE 0 END",
    "fencing_token": "r.attempts",
    "priority": "CASE WHEN r.i %% 10 = 0 THEN 1 + r.i %% 7 ELSE 0 END",
    "wake_at": "CASE WHEN r.status = 'queued' AND r.i %% 3 = 0"
    " THEN %(now)s + interval '5 minutes' ELSE r.created_at END",
    "attempt_count": "r.attempts",
    "trace_id": "md5('agentddl-trace-' || r.i)",
    "input": "jsonb_build_object('task', 'seeded task ' || r.i, 'tier', r.i %% 3)",
    "result": f"CASE WHEN r.status IN {FINISHED_SQL}"
    " THEN jsonb_build_object('ok', r.status = 'succeeded') END",
    "updated_at": "coalesce(r.finished_at, r.created_at + r.span)",
    "finished_at": "r.finished_at",
    # half the runs belong to a user's session of about four runs
    "user_id": "CASE WHEN r.i %% 2 = 0 THEN 'user-' || (r.i / 8) %% 997 END",
    "session_id": "CASE WHEN r.i %% 2 = 0 THEN md5('agentddl-session-' || r.i / 8)::uuid END",
    # model.details: what a run that started says about itself
    "workflow_version": "'v' || (1 + r.i %% 3)",
    "current_step": "CASE WHEN r.attempts > 0 THEN 'step_' || (1 + r.i %% 5) END",
    "error": "CASE WHEN r.status = 'failed' THEN 'seeded failure' END",
    "started_at": "CASE WHEN r.attempts > 0 THEN r.created_at END",
    "span_id": "left(md5('agentddl-span-' || r.i), 16)",
}

_LIVE = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "run_created_at": "r.created_at",
    "state": "r.status",
    "priority": _RUNS["priority"],
    "attempt_no": "r.attempts",
    "fencing_token": "r.attempts",
    "lease_token_hash": "CASE WHEN r.status = 'running'"
    " THEN sha256(convert_to('seed-lease-' || r.i || '-' || r.attempts, 'UTF8')) END",
    "worker_id": "CASE WHEN r.status = 'running' THEN 'worker-' || r.i %% 16 END",
    "event_seq": "r.events",
    "checkpoint_seq": "r.checkpoints",
}

_ATTEMPTS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "attempt_no": "s.n",
    "fencing_token": "s.n",
    "worker_id": "'worker-' || r.i %% 16",
    "lease_token_hash": "sha256(convert_to('seed-lease-' || r.i || '-' || s.n, 'UTF8'))",
    "status": "CASE WHEN s.n < r.attempts THEN 'expired' WHEN a.active THEN 'active'"
    " WHEN r.status IN ('succeeded', 'failed') THEN r.status ELSE 'interrupted' END",
    "started_at": "a.started_at",
    "heartbeat_at": "a.started_at",
    "ended_at": "CASE WHEN NOT a.active THEN a.started_at + interval '1 second' END",
    "interruption_reason": "CASE WHEN s.n < r.attempts THEN 'lease_expired'"
    " WHEN NOT a.active AND r.status NOT IN ('succeeded', 'failed') THEN 'worker_shutdown' END",
    "error": "CASE WHEN r.status = 'failed' AND s.n = r.attempts THEN 'seeded failure' END",
}

_CHECKPOINTS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "run_created_at": "r.created_at",
    "seq": "s.n",
    "parent_seq": "nullif(s.n - 1, 0)",
    "fencing_token": "r.attempts",
    "state_schema_version": "1",
    "next_nodes": "ARRAY['node_' || (s.n + 1)]",
    "completed_nodes": "ARRAY['node_' || s.n]",
    "payload": "CASE WHEN p.inline THEN p.doc END",
    "payload_ref": "CASE WHEN NOT p.inline THEN 's3://agentddl-seed/' || r.run_id || '/' || s.n END",
    "payload_bytes": "CASE WHEN p.inline THEN octet_length(p.doc::text) ELSE %(checkpoint_bytes)s END",
    "payload_sha256": "sha256(convert_to(p.doc::text, 'UTF8'))",
    "created_at": "r.created_at + r.span * s.n / (r.checkpoints + 1)",
}

_EVENTS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "run_created_at": "r.created_at",
    "seq": "s.n",
    # short kinds and mostly bare actors: the schema's bounded-repetition regex CHECKs
    # ({0,99}, {1,200}) cost ~0.5 us per character checked, which dominated the load
    "kind": "(ARRAY['step', 'llm', 'tool', 'state', 'done'])[1 + s.n %% 5]",
    "actor": "CASE WHEN s.n %% 25 = 0 THEN 'tool:search'"
    " ELSE (ARRAY['agent', 'system', 'agent', 'user'])[1 + s.n %% 4] END",
    "policy_version": "CASE WHEN r.i %% 4 <> 0 THEN 'policy-' || (1 + r.i %% 3) END",
    "payload": "jsonb_build_object('step', s.n, 'tokens', (r.i * 31 + s.n * 7) %% 2000)",
    "created_at": "e.at",
}

_OPERATIONS = {
    "tenant": "r.tkey",
    "idempotency_key": "'op-' || r.i || '-' || s.n",
    "run_id": "r.run_id",
    "input_hash": "sha256(convert_to('seed-input-' || r.i || '-' || s.n, 'UTF8'))",
    "fencing_token": "r.attempts",
    "status": "CASE WHEN o.pending THEN 'pending' WHEN r.i %% 20 = 0 THEN 'failed' ELSE 'succeeded' END",
    "result": "CASE WHEN NOT o.pending THEN jsonb_build_object('ok', r.i %% 20 <> 0) END",
    "created_at": "o.at",
    "completed_at": "CASE WHEN NOT o.pending THEN o.at + interval '1 second' END",
    "action": "(ARRAY['send_email', 'charge', 'post'])[1 + s.n %% 3]",
    "provider_reference": "CASE WHEN NOT o.pending THEN 'ref-' || r.i || '-' || s.n END",
    "trace_id": "md5('agentddl-trace-' || r.i)",
    "span_id": "left(md5('agentddl-span-' || r.i || '-' || s.n), 16)",
}

_OUTBOX = {
    "tenant": "r.tkey",
    "message_id": "md5('agentddl-message-' || r.i || '-' || s.n)::uuid",
    "run_id": "r.run_id",
    "topic": "'run.' || r.status",
    "payload": "jsonb_build_object('run_id', r.run_id, 'status', r.status)",
    "created_at": "m.at",
    "available_at": "m.at",
    "delivered_at": "CASE WHEN r.status <> 'running' THEN m.at + interval '2 seconds' END",
}


_NODE_ROWS = (
    "_seed_run AS r CROSS JOIN generate_series(1, r.operations) AS s(n)"
    " CROSS JOIN LATERAL (SELECT r.status = 'running' AND s.n = r.operations AS live,"
    " r.created_at + r.span * s.n / (r.operations + 1) AS at) AS x"
)

_NODE_EXECUTIONS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "node_id": "'node_' || s.n",
    "attempt": "1",
    "attempt_no": "greatest(r.attempts, 1)",
    "fencing_token": "r.attempts",
    "status": "CASE WHEN x.live THEN 'running'"
    " WHEN r.status = 'failed' AND s.n = r.operations THEN 'failed' ELSE 'succeeded' END",
    "output": "CASE WHEN NOT x.live THEN jsonb_build_object('step', s.n) END",
    "started_at": "x.at",
    "ended_at": "CASE WHEN NOT x.live THEN x.at + interval '1 second' END",
}

_TOOL_CALLS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "node_id": "'node_' || s.n",
    "node_attempt": "1",
    "call_no": "1",
    "tool": "(ARRAY['search', 'fetch', 'write'])[1 + s.n %% 3]",
    "idempotency_key": "'op-' || r.i || '-' || s.n",
    "status": "CASE WHEN x.live THEN 'pending' ELSE 'succeeded' END",
    "input": "jsonb_build_object('query', 'seeded ' || s.n)",
    "result": "CASE WHEN NOT x.live THEN jsonb_build_object('hits', s.n) END",
    "fencing_token": "r.attempts",
    "created_at": "x.at",
    "completed_at": "CASE WHEN NOT x.live THEN x.at + interval '1 second' END",
}

_NOTES = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "attempt_no": "r.attempts",
    "note_no": "s.n",
    "kind": "(ARRAY['progress', 'finding'])[s.n]",
    "body": "'seeded note ' || s.n || ' of run ' || r.i",
    "created_at": "r.created_at + r.span * s.n / 3",
}

_APPROVALS = {
    "tenant": "r.tkey",
    "run_id": "r.run_id",
    "approval_id": "md5('agentddl-approval-' || r.i)::uuid",
    "node_id": "'node_1'",
    "status": "CASE WHEN a.pending THEN 'pending' WHEN r.status = 'cancelled' THEN 'cancelled'"
    " ELSE 'approved' END",
    "request": "jsonb_build_object('action', 'refund', 'run', r.i)",
    "requested_by": "'worker-' || r.i %% 16",
    "requested_at": "a.at",
    "fencing_token": "r.attempts",
    "decided_by": "CASE WHEN NOT a.pending THEN 'user-' || r.i %% 50 END",
    "decided_at": "CASE WHEN NOT a.pending THEN a.at + interval '1 minute' END",
}


# A run's children go to one of %(workers)s concurrent loaders by the run's creation day,
# so each (daily) partition is written by one loader, in time order.
RUN_GROUP = "floor(extract(epoch FROM r.created_at) / 86400)::bigint %% %(workers)s = %(group)s"


def insert_statement(
    model: SchemaModel, table: Table, staging: str, grouped: bool = False
) -> sql.Composed | None:
    """INSERT INTO schema.table (...) SELECT ... for a table the seeder knows, else None.
    staging: the quoted name of the per-run staging table; grouped: only the runs of
    loader %(group)s of %(workers)s (for tables whose rows come from runs)."""
    source = _sources(model).get(table.name)
    if source is None:
        return None
    names, values = [], []
    for column in table.columns:
        key = "tenant" if column.name == model.profile.tenancy.column else column.name
        if key in source.values:
            names.append(sql.Identifier(column.name))
            values.append(sql.SQL(source.values[key]))
        elif not (column.nullable or column.default or column.identity):
            raise AgentDDLError(f"seed: no value for NOT NULL column {table.name}.{column.name} (no default)")
    statement = sql.SQL("INSERT INTO {}.{} ({}) SELECT {} FROM {}").format(
        sql.Identifier(model.schema),
        sql.Identifier(table.name),
        sql.SQL(", ").join(names),
        sql.SQL(", ").join(values),
        sql.SQL(source.from_sql.replace("_seed_run", staging)),
    )
    if grouped and "_seed_run" in source.from_sql:
        statement += sql.SQL(" WHERE " + RUN_GROUP)
    if source.order_by:
        statement += sql.SQL(" ORDER BY {}").format(sql.SQL(source.order_by))
    return statement


STAGING = """
CREATE UNLOGGED TABLE {staging} AS
SELECT u.i - 1 AS i, {tenant_key} AS tkey,
    md5('agentddl-run-' || (u.i - 1))::uuid AS run_id,
    %(now)s - u.age * interval '1 second' AS created_at,
    u.span * interval '1 second' AS span,
    CASE WHEN u.status IN ('succeeded', 'failed', 'cancelled')
        THEN %(now)s - (u.age - u.span) * interval '1 second' END AS finished_at,
    u.status, CASE WHEN u.parent >= 0 THEN md5('agentddl-run-' || u.parent)::uuid END AS parent_run_id,
    u.attempts, u.events, u.checkpoints, u.operations, u.outbox,
    u.i - 1 = ANY (%(expired)s::int[]) AS lease_expired
FROM unnest(%(tenant)s::int[], %(age)s::int[], %(span)s::int[], %(status)s::text[],
    %(parent)s::int[], %(attempts)s::int[], %(events)s::int[], %(checkpoints)s::int[],
    %(operations)s::int[], %(outbox)s::int[])
    WITH ORDINALITY AS u(tenant, age, span, status, parent, attempts, events, checkpoints,
        operations, outbox, i)
"""


def staging_statement(model: SchemaModel, staging: str) -> sql.SQL:
    """CREATE the staging table: one row per planned run, keys and times computed.
    A real (unlogged) table, not a temporary one: concurrent loaders read it."""
    tenant_key = TENANT_KEY[model.profile.tenancy.type].format(n="u.tenant")
    return sql.SQL(STAGING.replace("{tenant_key}", tenant_key).replace("{staging}", staging))
