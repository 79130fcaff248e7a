-- corpus: label=unsafe pg-version=14 runner=psql hazards=rename
ALTER SCHEMA reporting RENAME TO analytics;
