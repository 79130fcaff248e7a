DO $$
BEGIN
    IF (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pg_partman') LIKE '4.%' THEN
        PERFORM partman.create_parent(@common, p_type := 'native', p_jobmon := false);
    ELSE
        PERFORM partman.create_parent(@common, p_type := 'range', p_default_table := false);
    END IF;
    UPDATE partman.part_config
    SET retention = '@retention_seconds seconds', retention_keep_table = false
    WHERE parent_table = '@parent';
END
$$
