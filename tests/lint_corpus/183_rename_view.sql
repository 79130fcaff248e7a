-- corpus: label=unsafe pg-version=16 runner=psql hazards=rename
ALTER VIEW active_customers RENAME TO customers_active;
