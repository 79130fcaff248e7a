-- The checkpointer's queries.

-- name: get_latest(thread_id, checkpoint_ns)
SELECT checkpoint_id, checkpoint, metadata FROM checkpoints
WHERE thread_id = :thread_id AND checkpoint_ns = :checkpoint_ns
ORDER BY checkpoint_id DESC LIMIT 1;

-- name: get_checkpoint(thread_id, checkpoint_ns, checkpoint_id)
SELECT checkpoint, metadata FROM checkpoints
WHERE thread_id = :thread_id AND checkpoint_ns = :checkpoint_ns AND checkpoint_id = :checkpoint_id;

-- name: search_metadata(filter)
-- list(filter={...}): containment on the metadata document, newest first.
SELECT thread_id, checkpoint_id FROM checkpoints WHERE metadata @> :filter
ORDER BY checkpoint_id DESC LIMIT 10;

-- name: pending_writes(thread_id, checkpoint_ns, checkpoint_id)
SELECT task_id, channel, value FROM checkpoint_writes
WHERE thread_id = :thread_id AND checkpoint_ns = :checkpoint_ns AND checkpoint_id = :checkpoint_id
ORDER BY task_id, idx;

-- name: recent_threads
-- The threads active last: an aggregate over every checkpoint, its output sorted.
SELECT l.thread_id, l.latest_at
FROM (SELECT thread_id, max(created_at) AS latest_at FROM checkpoints GROUP BY thread_id) AS l
ORDER BY l.latest_at DESC
LIMIT 20;

-- name: threads_since(since)
SELECT DISTINCT thread_id FROM checkpoints WHERE created_at > :since;

-- name: delete_thread(thread_id)
DELETE FROM checkpoints WHERE thread_id = :thread_id;

-- name: put_checkpoint(thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata)
INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, created_at, checkpoint, metadata)
VALUES (:thread_id, :checkpoint_ns, :checkpoint_id, now(), :checkpoint, :metadata)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata;
