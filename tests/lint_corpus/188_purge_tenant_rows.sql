-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
-- Offboarding tenant 17 (2.3M audit rows): one statement, one transaction.
DELETE FROM audit_log WHERE tenant_id = 17;
