-- corpus: label=unsafe pg-version=15 runner=psql hazards=rewriting-default
CREATE EXTENSION IF NOT EXISTS "uuid-ossp";
SET lock_timeout = '2s';
ALTER TABLE devices ADD COLUMN install_id uuid DEFAULT uuid_generate_v4();
