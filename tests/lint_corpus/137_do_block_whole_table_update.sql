-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_name = 'accounts' AND column_name = 'tier') THEN
        UPDATE accounts SET tier = 'standard' WHERE tier IS NULL;
    END IF;
END
$$;
