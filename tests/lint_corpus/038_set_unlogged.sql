-- corpus: label=unsafe pg-version=16 runner=psql hazards=table-rewrite
-- page_views is a cache we can rebuild; stop paying WAL for it.
SET lock_timeout = '2s';
ALTER TABLE page_views SET UNLOGGED;
