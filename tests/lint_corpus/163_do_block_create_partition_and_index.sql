-- corpus: label=safe pg-version=16 runner=psql hazards=index-build
-- Next month's partition, created ahead of time, then its index (the partition is new and empty).
DO $$
DECLARE
    starts date := date_trunc('month', now() + interval '1 month');
    part text := 'events_' || to_char(now() + interval '1 month', 'YYYY_MM');
BEGIN
    EXECUTE format(
        'CREATE TABLE IF NOT EXISTS public.%I PARTITION OF public.events FOR VALUES FROM (%L) TO (%L)',
        part, starts, starts + interval '1 month'
    );
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.%I (account_id, created_at)', part || '_account_idx', part);
END
$$;
