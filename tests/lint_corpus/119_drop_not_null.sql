-- corpus: label=safe pg-version=15 runner=psql hazards=set-not-null,lock-timeout
-- Expand phase: the new signup flow collects the phone number later.
ALTER TABLE "accounts_profile" ALTER COLUMN "phone" DROP NOT NULL;
