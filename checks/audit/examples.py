"""Example parameters for the generated queries, taken from the seeded data.

A plan is only as realistic as its parameters: the biggest ("hot") tenant, a real
running run of that tenant with an active attempt (fenced writes find their row), its
history (a page near the end, the next seq), a parent that has children, a recent
window, a delta-sync cursor a little behind the tenant's newest event. Values are
read from the database, never guessed constants that could miss.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

# Parameters whose value does not depend on the data (what a caller would pass).
CONSTANTS: dict[str, object] = {
    "worker_id": "audit-worker",
    "relay_id": "audit-relay",
    "lease_token": "audit-lease-token",
    "lease_seconds": 60,
    "claim_seconds": 30,
    "backoff_seconds": 10,
    "stale_seconds": 3600,
    "batch_size": 100,
    "limit": 100,
    "retryable": True,
    "error": "audit: example failure",
    "reason": "worker_shutdown",
    "kind": "research",
    "priority": 0,
    "run_key": "audit-run-key",
    "trace_id": "0af7651916cd43dd8448eb211c80319c",
    "input": Jsonb({"task": "audit"}),
    "result": Jsonb({"ok": True}),
    "payload": Jsonb({"step": 1}),
    "topic": "run.succeeded",
    "actor": "agent",
    "policy_version": "policy-1",
    "state_schema_version": 1,
    "next_nodes": ["audit_next"],
    "completed_nodes": ["audit_done"],
    "metadata": Jsonb({"code_version": "audit"}),
    "payload_ref": None,
    "payload_bytes": None,
    "payload_sha256": None,
    "status": "succeeded",
    "to_status": "waiting",
    "input_hash": hashlib.sha256(b"audit").digest(),
    "user_id": "audit-user",
    "output": Jsonb({"ok": True}),
    "tool": "search",
    "request": Jsonb({"action": "audit"}),
    "requested_by": "audit-worker",
    "decision": "approved",
    "decided_by": "audit-user",
    "decision_note": None,
    "attempt_no": 1,  # attempt_notes' FK cascade from an attempt: every started run has attempt 1
    "note_kind": "finding",
    "body": "audit: the index serves the path",
    "workflow_version": "audit-v1",
    "span_id": "00f067aa0ba902b7",
    "current_step": "audit_step",
    "action": "send_email",
    "provider_reference": "audit-ref",
}


@dataclass(frozen=True)
class Samples:
    """Named values from the seeded data; `@name` in a user's `-- example:` line."""

    values: dict[str, object]

    def for_query(
        self, name: str, params: tuple[str, ...], tenant_column: str | None, table: str | None = None
    ) -> dict[str, object]:
        """Values for a generated query's parameters. A query about one run (it has a
        run_id) gets the subject run's tenant, others the hot tenant; seq numbers are
        the table's own (checkpoints count apart from events)."""
        chosen: dict[str, object] = {}
        about_a_run = "run_id" in params
        for param in params:
            if f"{table}.{param}" in self.values:
                chosen[param] = self.values[f"{table}.{param}"]
            elif param == tenant_column:
                chosen[param] = self.values["run_tenant" if about_a_run else "hot_tenant"]
            elif param in self.values:
                chosen[param] = self.values[param]
            elif param in CONSTANTS:
                chosen[param] = CONSTANTS[param]
            else:
                raise AgentDDLError(f"audit: no example value for parameter {param!r} of query {name!r}")
        return chosen


def read_samples(conn: psycopg.Connection[Any], model: SchemaModel) -> Samples:
    """Sample values from the seeded database (see the module docstring)."""
    tenant = model.profile.tenancy.column
    cur = conn.cursor(row_factory=dict_row)
    values: dict[str, object] = {}
    if tenant:
        values["hot_tenant"] = _one(cur, _HOT_TENANT, model, tenant)
    run = _row(cur, _SUBJECT_RUN, model, tenant)
    values |= {
        "run_tenant": run["tenant"],
        "run_id": run["run_id"],
        "run_created_at": run["created_at"],
        "created_at": run["created_at"],
        "fencing_token": run["fencing_token"],
        "expected_version": run["version"],
        "seq": run["last_seq"] + 1,
        "parent_seq": run["last_seq"] or None,
        "after_seq": max(0, run["last_seq"] - 50),
        "checkpoints.seq": run["last_checkpoint"] + 1,
        "checkpoints.parent_seq": run["last_checkpoint"] or None,
    }
    scope = values.get("hot_tenant")
    # at small volume the hot tenant may have no tree or history: a key that is absent
    # still plans the same lookup
    values["parent_run_id"] = _one(cur, _PARENT, model, tenant, scope, default=run["run_id"])
    values["after_id"] = _one(cur, _CURSOR, model, tenant, scope, default=0)
    values["idempotency_key"] = _one(cur, _OPERATION, model, tenant, run["tenant"], default="audit-absent")
    values["message_id"] = _one(cur, _MESSAGE, model, tenant, run["tenant"], default=run["run_id"])
    values |= _part_samples(cur, model, tenant, scope, run)
    now: datetime = _one(cur, "SELECT now()", model, tenant)
    values |= {"window_start": now - timedelta(hours=1), "window_end": now}
    values |= _batch_samples(values, tenant)
    return Samples(values)


def _batch_samples(values: dict[str, object], tenant: str | None) -> dict[str, object]:
    """complete_attempts' arrays: the subject run as a batch of one (a batch plans per
    element as a single completion does)."""
    batch: dict[str, object] = {
        "run_ids": [values["run_id"]],
        "fencing_tokens": [values["fencing_token"]],
        "lease_tokens": [CONSTANTS["lease_token"]],
        "results": [CONSTANTS["result"]],
    }
    if tenant:
        batch[f"{tenant}s"] = [values["run_tenant"]]
    return batch


def _part_samples(
    cur: Any, model: SchemaModel, tenant: str | None, scope: object, run: dict[str, Any]
) -> dict[str, object]:
    """The optional parts' keys: the hot tenant's busiest session, the subject run's last
    node execution and its next tool call, an approval of the subject run's tenant."""
    parts = model.profile.model
    values: dict[str, object] = {}
    if parts.sessions:
        values["session_id"] = _one(cur, _SESSION, model, tenant, scope, default=run["run_id"])
    if parts.nodes:
        node = _one(cur, _NODE, model, tenant, run["run_id"], default=None) or {"node_id": "n", "attempt": 1}
        values |= {
            "node_id": node["node_id"],
            "attempt": node["attempt"],
            "node_attempt": node["attempt"],
            "call_no": 2,
        }
    if parts.approvals:
        values["approval_id"] = _one(cur, _APPROVAL, model, tenant, run["tenant"], default=run["run_id"])
    return values


_SESSION = """SELECT r.session_id FROM {s}.runs AS r WHERE r.session_id IS NOT NULL {scope_r}
GROUP BY {t_r_comma} r.session_id ORDER BY count(*) DESC, r.session_id LIMIT 1"""
_NODE = """SELECT jsonb_build_object('node_id', n.node_id, 'attempt', n.attempt)
FROM {s}.node_executions AS n WHERE n.run_id = %(scope)s ORDER BY n.started_at DESC LIMIT 1"""
_APPROVAL = """SELECT ap.approval_id FROM {s}.approvals AS ap WHERE true {scope_ap}
ORDER BY ap.requested_at DESC LIMIT 1"""
_HOT_TENANT = "SELECT {t} FROM {s}.runs GROUP BY {t} ORDER BY count(*) DESC, {t} LIMIT 1"
# a running run with an active attempt and the most history; fenced writes find it
_SUBJECT_RUN = """
SELECT {t_r} AS tenant, r.run_id, r.created_at, r.fencing_token, r.version,
    coalesce((SELECT max(e.seq) FROM {s}.events AS e WHERE {match_e}
        AND e.run_created_at = r.created_at), 0) AS last_seq,
    coalesce((SELECT max(c.seq) FROM {s}.checkpoints AS c WHERE {match_c}
        AND c.run_created_at = r.created_at), 0) AS last_checkpoint
FROM {s}.runs AS r
WHERE r.status = 'running'
ORDER BY (SELECT count(*) FROM {s}.events AS e WHERE {match_e}
    AND e.run_created_at = r.created_at) DESC, r.run_id
LIMIT 1"""
_PARENT = """SELECT r.parent_run_id FROM {s}.runs AS r WHERE r.parent_run_id IS NOT NULL {scope_r}
GROUP BY {t_r_comma} r.parent_run_id ORDER BY count(*) DESC, r.parent_run_id LIMIT 1"""
# a reader a little behind: 500 events (at most half the tenant's) before the newest
_CURSOR = """SELECT e.event_id FROM {s}.events AS e WHERE true {scope_e}
ORDER BY e.event_id DESC
OFFSET least(500, (SELECT count(*) / 2 FROM {s}.events AS e WHERE true {scope_e})) LIMIT 1"""
_OPERATION = """SELECT o.idempotency_key FROM {s}.operations AS o WHERE true {scope_o}
ORDER BY o.created_at DESC LIMIT 1"""
_MESSAGE = "SELECT m.message_id FROM {s}.outbox AS m WHERE true {scope_m} ORDER BY m.created_at DESC LIMIT 1"


def _compose(template: str, model: SchemaModel, tenant: str | None) -> sql.Composed:
    t = sql.Identifier(tenant) if tenant else sql.SQL("NULL")
    parts: dict[str, sql.Composable] = {"s": sql.Identifier(model.schema), "t": t}
    for alias in ("r", "e", "o", "m", "ap"):
        column = sql.SQL("{}.{}").format(sql.Identifier(alias), sql.Identifier(tenant)) if tenant else None
        parts[f"t_{alias}"] = column or sql.SQL("NULL")
        parts[f"t_{alias}_comma"] = sql.SQL("{}, ").format(column) if column else sql.SQL("")
        parts[f"scope_{alias}"] = sql.SQL("AND {} = %(scope)s").format(column) if column else sql.SQL("")
    for alias in ("e", "c"):
        match: list[sql.Composable] = [sql.SQL(f"{alias}.run_id = r.run_id")]
        if tenant:
            match.insert(0, sql.SQL(alias + ".{0} = r.{0}").format(sql.Identifier(tenant)))
        parts[f"match_{alias}"] = sql.SQL(" AND ").join(match)
    return sql.SQL(template).format(**parts)


_REQUIRED = object()


def _row(
    cur: Any, template: str, model: SchemaModel, tenant: str | None, scope: object = None
) -> dict[str, Any]:
    cur.execute(_compose(template, model, tenant), {"scope": scope})
    row = cur.fetchone()
    if row is None:
        raise AgentDDLError(
            f"audit: the seeded data has no row for an example ({template.split()[1]}...); seed more rows"
        )
    return dict(row)


def _one(
    cur: Any,
    template: str,
    model: SchemaModel,
    tenant: str | None,
    scope: object = None,
    default: object = _REQUIRED,
) -> Any:
    cur.execute(_compose(template, model, tenant), {"scope": scope})
    row = cur.fetchone()
    if row is None and default is not _REQUIRED:
        return default
    if row is None:
        raise AgentDDLError("audit: the seeded data has no row for an example; seed more rows (--rows)")
    return next(iter(dict(row).values()))
