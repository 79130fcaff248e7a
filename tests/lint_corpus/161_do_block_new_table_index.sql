-- corpus: label=safe pg-version=16 runner=psql hazards=index-build
DO $$
BEGIN
    IF to_regclass('public.rate_limits') IS NULL THEN
        CREATE TABLE public.rate_limits (
            key text PRIMARY KEY,
            tokens integer NOT NULL,
            refilled_at timestamptz NOT NULL
        );
        CREATE INDEX rate_limits_refilled_at_idx ON public.rate_limits (refilled_at);
    END IF;
END
$$;
