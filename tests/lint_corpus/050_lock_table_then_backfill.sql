-- corpus: label=unsafe pg-version=14 runner=psql hazards=lock-with-slow-work
BEGIN;
SET LOCAL lock_timeout = '2s';
LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE;
UPDATE accounts SET plan = 'free' WHERE id BETWEEN 1 AND 5000;
INSERT INTO account_plan_history (account_id, plan, changed_at)
SELECT id, plan, now() FROM accounts;
COMMIT;
