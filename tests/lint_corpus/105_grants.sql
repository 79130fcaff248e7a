-- corpus: label=safe pg-version=15 runner=psql hazards=none
GRANT USAGE ON SCHEMA reporting TO analytics_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA reporting TO analytics_ro;
ALTER DEFAULT PRIVILEGES IN SCHEMA reporting GRANT SELECT ON TABLES TO analytics_ro;
REVOKE INSERT, UPDATE, DELETE ON orders FROM support_agent;
