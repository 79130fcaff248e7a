-- corpus: label=safe pg-version=15 runner=psql hazards=backfill
-- settings.key is the primary key: this touches one row.
UPDATE settings SET value = 'true' WHERE key = 'checkout.v2.enabled';
INSERT INTO settings (key, value) VALUES ('checkout.v3.enabled', 'false')
ON CONFLICT (key) DO NOTHING;
