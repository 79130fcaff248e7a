-- Queries a team runs beside the generated ones (the audit page's example).

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
-- example: tenant_id = @run_tenant
-- example: run_id = @run_id
SELECT r.status FROM agent.runs AS r WHERE r.tenant_id = :tenant_id AND r.run_id = :run_id;
