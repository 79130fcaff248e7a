-- corpus: label=unsafe pg-version=14 runner=psql hazards=non-concurrent-maintenance
-- Recompute the dashboard after the currency fix.
REFRESH MATERIALIZED VIEW daily_revenue;
