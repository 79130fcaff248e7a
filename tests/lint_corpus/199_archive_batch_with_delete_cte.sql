-- corpus: label=safe pg-version=16 runner=psql hazards=backfill
-- One batch of the archive job; the scheduler repeats it until nothing moves.
WITH batch AS (
    SELECT id FROM events WHERE created_at < '2023-01-01' ORDER BY id LIMIT 2000
), moved AS (
    DELETE FROM events e USING batch b WHERE e.id = b.id
    RETURNING e.*
)
INSERT INTO events_archive SELECT * FROM moved;
