-- corpus: label=unsafe pg-version=15 runner=psql hazards=drop
DROP TABLE IF EXISTS feature_flags_old;
