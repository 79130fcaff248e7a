-- corpus: label=safe pg-version=16 runner=psql hazards=rewriting-default,lock-timeout
-- psql -f: plain add-column with constant defaults, no timeouts set.
ALTER TABLE notifications_settings ADD COLUMN digest_frequency text NOT NULL DEFAULT 'weekly';
ALTER TABLE notifications_settings ADD COLUMN quiet_hours int4range DEFAULT '[22,24)';
