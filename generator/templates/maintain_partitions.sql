CREATE PROCEDURE @qschema.maintain_partitions(p_now timestamptz DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    at timestamptz := coalesce(p_now, now());
    step record;
    tries integer;
    done boolean;
    reason text;
    skipped text[] := '{}';
BEGIN
    FOR step IN SELECT * FROM @qschema.partition_steps(at, false) LOOP
        CONTINUE WHEN step.partition_name = ANY (skipped);
        tries := 0;
        LOOP
            tries := tries + 1;
            BEGIN
                PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
                PERFORM pg_catalog.set_config('role', @table_owner, true);
                PERFORM pg_catalog.set_config('lock_timeout', '@{lock_timeout_ms}ms', true);
                EXECUTE step.statement;
                done := true;
            EXCEPTION
                WHEN lock_not_available THEN
                    done := false;
                    reason := SQLERRM;
                WHEN OTHERS THEN  -- kept for the next run; the other steps go on
                    done := NULL;
                    reason := SQLERRM;
            END;
            IF done THEN
                COMMIT;
                RAISE NOTICE 'maintain_partitions: % %', step.action, step.partition_name;
                EXIT;
            END IF;
            ROLLBACK;
            IF done IS NULL OR tries >= @tries THEN
                RAISE WARNING 'maintain_partitions: % % failed after % tries, kept for the next run: %',
                    step.action, step.partition_name, tries, reason;
                skipped := skipped || step.partition_name;
                EXIT;
            END IF;
            PERFORM pg_catalog.pg_sleep(@first_pause * 2 ^ (tries - 1));
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON PROCEDURE @qschema.maintain_partitions(timestamptz) FROM public;
GRANT EXECUTE ON PROCEDURE @qschema.maintain_partitions(timestamptz) TO @owner
