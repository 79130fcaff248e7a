-- corpus: label=safe pg-version=14 runner=psql hazards=non-concurrent-maintenance
REFRESH MATERIALIZED VIEW CONCURRENTLY daily_revenue;
