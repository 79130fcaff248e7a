-- corpus: label=unsafe pg-version=14 runner=psql hazards=rewriting-default
ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz DEFAULT clock_timestamp();
