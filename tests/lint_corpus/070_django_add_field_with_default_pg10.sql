-- corpus: label=unsafe pg-version=10 runner=psql hazards=rewriting-default
BEGIN;
--
-- Add field is_verified to profile
--
ALTER TABLE "accounts_profile" ADD COLUMN "is_verified" boolean DEFAULT false NOT NULL;
ALTER TABLE "accounts_profile" ALTER COLUMN "is_verified" DROP DEFAULT;
COMMIT;
