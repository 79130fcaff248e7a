-- corpus: label=unsafe pg-version=15 runner=psql hazards=drop
-- Reporting moved to the warehouse; nothing should be connected any more.
DROP DATABASE IF EXISTS legacy_reports;
