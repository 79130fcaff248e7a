-- corpus: label=safe pg-version=15 runner=psql hazards=non-concurrent-maintenance
CREATE MATERIALIZED VIEW monthly_signups AS
SELECT date_trunc('month', created_at) AS month, count(*) AS signups
FROM users
GROUP BY 1
WITH NO DATA;
CREATE UNIQUE INDEX monthly_signups_month_idx ON monthly_signups (month);
REFRESH MATERIALIZED VIEW monthly_signups;
