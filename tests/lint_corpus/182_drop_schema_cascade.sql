-- corpus: label=unsafe pg-version=15 runner=psql hazards=drop
DROP SCHEMA legacy_reporting CASCADE;
