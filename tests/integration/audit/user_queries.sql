-- Queries a team runs beside the generated ones (fixture for the audit tests).

-- name: run_by_trace(trace_id)
-- Find a run from a trace id seen in the tracing UI (no index leads with trace_id).
-- example: trace_id = (SELECT trace_id FROM agent.runs ORDER BY run_id LIMIT 1)
SELECT r.tenant_id, r.run_id, r.status
FROM agent.runs AS r
WHERE r.trace_id = :trace_id;

-- name: recent_failures(kind)
-- The newest failed runs of one kind, for an on-call dashboard.
-- example: kind = 'research'
SELECT r.tenant_id, r.run_id, r.finished_at
FROM agent.runs AS r
WHERE r.kind = :kind AND r.status = 'failed'
ORDER BY r.finished_at DESC
LIMIT 10;

-- name: tenant_run(tenant_id, run_id)
-- Served by the primary key.
-- index: runs_pkey
-- example: tenant_id = @run_tenant
-- example: run_id = @run_id
SELECT r.status FROM agent.runs AS r WHERE r.tenant_id = :tenant_id AND r.run_id = :run_id;

-- name: run_without_tenant(run_id)
-- A run looked up by id alone: every index on runs leads with tenant_id
-- (PostgreSQL 18 can skip-scan the primary key; earlier versions scan the table).
-- example: run_id = @run_id
SELECT r.status FROM agent.runs AS r WHERE r.run_id = :run_id;

-- name: due_runs(status)
-- Due runs in one status: with status = 'queued' the custom plan can use the partial
-- runs_claim_idx; the generic plan of a prepared statement can't (16+ shows it).
-- example: status = 'queued'
SELECT r.run_id FROM agent.runs AS r
WHERE r.status = :status AND r.wake_at <= now()
ORDER BY r.priority DESC, r.wake_at
LIMIT 10;

-- name: events_of_kind_at_step(kind, seq)
-- One kind of event at one step across every run: nothing indexes (kind, seq), and
-- events is partitioned, so hypopg gets a hypothetical index on every partition.
-- example: kind = 'llm'
-- example: seq = 7
SELECT e.run_id, e.created_at FROM agent.events AS e WHERE e.kind = :kind AND e.seq = :seq;
