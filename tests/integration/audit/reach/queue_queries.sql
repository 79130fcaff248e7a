-- The queue's hot paths, as its users would write them (aiosql blocks).

-- name: fetch_job
-- A worker's claim: the next due job of a queue, locked and marked doing.
UPDATE jobs SET status = 'doing', worker_id = :worker_id, attempts = attempts + 1
WHERE id = (
    SELECT id FROM jobs
    WHERE status = 'todo' AND queue = :queue AND run_at <= now()
    ORDER BY priority DESC, run_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING id, payload;

-- name: job_by_id(id)
SELECT id, status, payload FROM jobs WHERE id = :id;

-- name: finish_job(id, status)
UPDATE jobs SET status = :status, worker_id = NULL WHERE id = :id;

-- name: jobs_by_lock(lock_key)
-- Jobs holding a lock key: no index has lock_key.
SELECT id FROM jobs WHERE lock_key = :lock_key AND status = 'doing';

-- name: retry_failed(queue)
-- The newest failed jobs of a queue: nothing indexes the failed ones.
SELECT id FROM jobs WHERE status = 'failed' AND queue = :queue ORDER BY created_at DESC LIMIT 50;

-- name: peek_todo
-- A dashboard's peek at the first todo job in queue order: the fetch index read from its
-- start, its leading column free, stopping at the first row (a lookup of ~0.02 ms).
SELECT id, queue FROM jobs WHERE status = 'todo' AND priority >= 0 ORDER BY queue LIMIT 1;

-- name: delete_stale_workers(cutoff)
-- Cheap on workers; each deleted worker sets jobs.worker_id to NULL: no index on it.
DELETE FROM workers WHERE last_heartbeat < :cutoff;

-- name: job_events_of(job_id)
SELECT type, at FROM job_events WHERE job_id = :job_id ORDER BY at;

-- name: purge_done(before)
DELETE FROM jobs WHERE status = 'succeeded' AND created_at < :before;

-- name: enqueue(id, queue, payload)
INSERT INTO jobs (id, queue, status, priority, run_at, payload, created_at)
VALUES (:id, :queue, 'todo', 0, now(), :payload, now());
