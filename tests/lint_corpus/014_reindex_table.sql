-- corpus: label=unsafe pg-version=16 runner=psql hazards=non-concurrent-maintenance
SET lock_timeout = '5s';
REINDEX TABLE public.events;
