-- corpus: label=unsafe pg-version=15 runner=psql hazards=index-build
-- psql -v schema=billing -v reader=reporting_ro -f 202_psql_variables_index.sql
\set ON_ERROR_STOP on
SET search_path TO :"schema";
SET lock_timeout = '2s';
CREATE INDEX invoices_due_date_idx ON invoices (due_date);
GRANT SELECT ON invoices TO :reader;
