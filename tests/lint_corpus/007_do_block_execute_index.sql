-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
DO $migration$
DECLARE
    tbl text;
BEGIN
    FOREACH tbl IN ARRAY ARRAY['payments', 'refunds'] LOOP
        EXECUTE format('CREATE INDEX %I ON public.%I (merchant_id)', tbl || '_merchant_id_idx', tbl);
    END LOOP;
END
$migration$;
