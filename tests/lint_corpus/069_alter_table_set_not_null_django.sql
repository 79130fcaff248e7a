-- corpus: label=unsafe pg-version=15 runner=psql hazards=set-not-null
BEGIN;
--
-- Alter field phone on profile
--
ALTER TABLE "accounts_profile" ALTER COLUMN "phone" SET NOT NULL;
COMMIT;
