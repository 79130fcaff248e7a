DO $$
BEGIN
    IF 'lz4' = ANY (SELECT unnest(enumvals) FROM pg_catalog.pg_settings
                    WHERE name = 'default_toast_compression') THEN
        @alter;
    ELSE
        RAISE NOTICE 'server lacks lz4: @table payloads use pglz';
    END IF;
END
$$
