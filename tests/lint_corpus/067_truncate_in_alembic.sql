-- corpus: label=unsafe pg-version=15 runner=alembic hazards=truncate
BEGIN;

-- Running upgrade 0e3f4a5b6c7d -> 8a8b8c8d8e8f

TRUNCATE search_documents RESTART IDENTITY;

UPDATE alembic_version SET version_num='8a8b8c8d8e8f' WHERE alembic_version.version_num = '0e3f4a5b6c7d';

COMMIT;
