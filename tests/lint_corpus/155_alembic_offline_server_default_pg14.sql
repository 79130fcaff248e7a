-- corpus: label=safe pg-version=14 runner=alembic hazards=rewriting-default,add-not-null-column
BEGIN;

-- Running upgrade 3c3c3c3c3c3c -> 5e5e5e5e5e5e

SET LOCAL lock_timeout = '2s';

ALTER TABLE projects ADD COLUMN visibility VARCHAR(16) DEFAULT 'private' NOT NULL;

UPDATE alembic_version SET version_num='5e5e5e5e5e5e' WHERE alembic_version.version_num = '3c3c3c3c3c3c';

COMMIT;
