-- corpus: label=safe pg-version=13 runner=psql hazards=rewriting-default
-- Stable and immutable defaults are evaluated once (PostgreSQL 11+): no rewrite.
SET lock_timeout = '2s';
ALTER TABLE subscriptions ADD COLUMN trial_ends_at timestamptz DEFAULT now() + interval '14 days';
ALTER TABLE subscriptions ADD COLUMN created_by text DEFAULT current_user;
ALTER TABLE subscriptions ADD COLUMN labels text[] NOT NULL DEFAULT ARRAY[]::text[];
ALTER TABLE subscriptions ADD COLUMN started_on date DEFAULT CURRENT_DATE;
