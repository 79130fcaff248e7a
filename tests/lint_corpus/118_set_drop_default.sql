-- corpus: label=safe pg-version=16 runner=psql hazards=rewriting-default,lock-timeout
ALTER TABLE orders ALTER COLUMN source SET DEFAULT 'web';
ALTER TABLE orders ALTER COLUMN legacy_flag DROP DEFAULT;
