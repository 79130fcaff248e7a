-- corpus: label=unsafe pg-version=14 runner=psql hazards=index-build
-- Idempotent: only create the index if someone has not added it by hand.
DO $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM pg_indexes WHERE schemaname = 'public' AND indexname = 'events_account_id_idx'
    ) THEN
        CREATE INDEX events_account_id_idx ON public.events (account_id);
    END IF;
END
$$;
