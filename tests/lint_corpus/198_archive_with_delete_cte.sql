-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
-- Move 2022 into the archive table in one go.
WITH moved AS (
    DELETE FROM events
    WHERE created_at < '2023-01-01'
    RETURNING *
)
INSERT INTO events_archive SELECT * FROM moved;
