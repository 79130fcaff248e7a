-- The workflow store's queries.

-- name: workflow_by_id(id)
SELECT * FROM workflows WHERE id = :id;

-- name: workflows_of_tenant(tenant, status)
SELECT id, name FROM workflows WHERE tenant = :tenant AND status = :status
ORDER BY created_at DESC LIMIT 50;

-- name: find_by_name(name)
-- The parameter is inside lower(): no column to sample it from, so an example.
-- example: name = (SELECT name FROM workflows ORDER BY id LIMIT 1)
SELECT id FROM workflows WHERE lower(name) = lower(:name);

-- name: steps_of(workflow_id)
SELECT id, position, name, status FROM steps WHERE workflow_id = :workflow_id ORDER BY position;

-- name: running_steps
SELECT id, workflow_id FROM steps WHERE status = 'running' ORDER BY started_at LIMIT 100;

-- name: logs_of_step(step_id)
SELECT level, message, logged_at FROM step_logs WHERE step_id = :step_id ORDER BY logged_at;

-- name: recent_logs(since)
SELECT step_id, level, message FROM step_logs WHERE logged_at > :since;

-- name: stale_workflows(before)
SELECT id FROM workflows WHERE status = 'running' AND updated_at < :before;

-- name: delete_workflow(id)
-- Cascades to steps (indexed); signals' foreign key has no index.
DELETE FROM workflows WHERE id = :id;

-- name: complete_step(id)
UPDATE steps SET status = 'done', finished_at = now() WHERE id = :id;
