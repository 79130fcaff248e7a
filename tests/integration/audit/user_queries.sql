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

-- name: attempts_in_status(status)
-- The newest attempts in one status: with status = 'active' the custom plan reads the
-- few active ones through the partial attempts_one_active_key; the generic plan of a
-- prepared statement can't use it and reads every attempt (16+ shows it).
-- example: status = 'active'
SELECT a.run_id FROM agent.attempts AS a
WHERE a.status = :status
ORDER BY a.started_at DESC
LIMIT 10;

-- name: events_of_kind_at_step(kind, seq)
-- One kind of event at one step across every run: nothing indexes (kind, seq), and
-- events is partitioned, so hypopg gets a hypothetical index on every partition.
-- example: kind = 'llm'
-- example: seq = 7
SELECT e.run_id, e.created_at FROM agent.events AS e WHERE e.kind = :kind AND e.seq = :seq;

-- name: failed_last_nulls_last(kind)
-- NULLS LAST under DESC: an index built (kind, finished_at DESC) is NULLS FIRST and
-- can't return these rows in order; the suggestion must say NULLS LAST.
-- example: kind = 'research'
SELECT r.run_id FROM agent.runs AS r WHERE r.kind = :kind
ORDER BY r.finished_at DESC NULLS LAST LIMIT 10;

-- name: run_by_trace_lower(trace_id)
-- A function of the column: only an expression index serves it.
-- example: trace_id = (SELECT upper(trace_id) FROM agent.runs ORDER BY run_id LIMIT 1)
SELECT r.run_id FROM agent.runs AS r WHERE lower(r.trace_id) = lower(:trace_id);

-- name: runs_by_trace_prefix(prefix)
-- A LIKE prefix: a B-tree with text_pattern_ops serves it under any collation.
-- example: prefix = (SELECT left(trace_id, 6) || '%' FROM agent.runs ORDER BY run_id LIMIT 1)
SELECT r.run_id FROM agent.runs AS r WHERE r.trace_id LIKE :prefix;

-- name: cancel_run(tenant_id, run_id)
-- A write: run under EXPLAIN ANALYZE and rolled back (the test checks the row).
-- example: tenant_id = @run_tenant
-- example: run_id = @run_id
UPDATE agent.runs AS r SET status = 'cancelled', finished_at = now(), version = r.version + 1
WHERE r.tenant_id = :tenant_id AND r.run_id = :run_id;

-- name: next_due()
-- The queue shape on the live set, served by run_queue_visible_idx: no finding, no suggestion.
SELECT q.run_id FROM agent.run_queue AS q
WHERE q.visible_at <= now()
ORDER BY q.priority DESC, q.visible_at LIMIT 10;

-- name: last_event(tenant_id, run_id)
-- The append-log shape, served by events_pkey (a backward scan per partition).
-- example: tenant_id = @run_tenant
-- example: run_id = @run_id
SELECT e.seq FROM agent.events AS e
WHERE e.tenant_id = :tenant_id AND e.run_id = :run_id ORDER BY e.seq DESC LIMIT 1;

-- name: tenant_by_name(name)
-- A small table: a sequential scan is the right plan, no finding.
-- example: name = 'nobody'
SELECT t.tenant_id FROM agent.tenants AS t WHERE t.name = :name;

-- name: tenant_events_since_yesterday(tenant_id)
-- The partition key through a cast (timestamptz::date depends on the time zone): no
-- partition is pruned (ADA103); the fix is the query, not an index.
-- example: tenant_id = @hot_tenant
SELECT count(*) FROM agent.events AS e
WHERE e.tenant_id = :tenant_id AND e.run_created_at::date >= current_date - 1;

-- name: run_by_trace_or_key(trace_id, run_key)
-- An OR of two columns: no one key serves it; one index per arm does (a BitmapOr).
-- example: trace_id = (SELECT trace_id FROM agent.runs ORDER BY run_id LIMIT 1)
-- example: run_key = 'no-such-key'
SELECT r.run_id FROM agent.runs AS r WHERE r.trace_id = :trace_id OR r.run_key = :run_key;
