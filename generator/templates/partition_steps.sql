CREATE FUNCTION @qschema.partition_steps(
    p_now timestamptz DEFAULT now(), p_concurrently boolean DEFAULT TRUE
)
RETURNS TABLE (action text, table_name text, partition_name text, statement text)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET DateStyle = 'ISO, YMD'
AS $$
DECLARE
    spec record;
    part record;
    step interval;
    lower_bound timestamptz;
    upper_bound timestamptz;
    current_start timestamptz;
    starts timestamptz[];
    ends timestamptz[];
    free_from timestamptz;
    free_to timestamptz;
    existing regclass;
    digits text;
BEGIN
    FOR spec IN
        SELECT * FROM (VALUES
            @specs
        ) AS specs (name, unit, keep, runway, suffix, fk)
    LOOP
        step := ('1 ' || spec.unit)::interval;
        table_name := spec.name;
        -- a detach an operator or an interrupted run left pending: finish it (and drop it
        -- when it is past retention)
        FOR part IN
            SELECT child.relname, pg_get_expr(child.relpartbound, child.oid) AS bound
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = format('%I.%I', '@schema', spec.name)::regclass AND inh.inhdetachpending
            ORDER BY child.relname
        LOOP
            partition_name := part.relname;
            action := 'finalize';
            statement := format('ALTER TABLE %I.%I DETACH PARTITION %I.%I FINALIZE',
                '@schema', spec.name, '@schema', part.relname);
            RETURN NEXT;
            IF substring(part.bound FROM 'TO \(''([^'']+)''\)')::timestamptz <= p_now - spec.keep THEN
                action := 'unlink';
                statement := format('ALTER TABLE %I.%I DROP CONSTRAINT IF EXISTS %I',
                    '@schema', part.relname, spec.fk);
                RETURN NEXT;
                action := 'drop';
                statement := format('DROP TABLE %I.%I', '@schema', part.relname);
                RETURN NEXT;
            END IF;
        END LOOP;
        -- from the oldest partition still inside retention (none yet: the current one), so
        -- periods missed while maintenance was down are filled, not only the runway
        current_start := date_trunc(spec.unit, p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        -- the ranges the attached partitions cover, oldest first
        SELECT coalesce(array_agg(b.bound_from ORDER BY b.bound_from), '{}'),
               coalesce(array_agg(b.bound_to ORDER BY b.bound_from), '{}')
        INTO starts, ends
        FROM (
            SELECT substring(pg_get_expr(child.relpartbound, child.oid) FROM 'FROM \(''([^'']+)''\)')::timestamptz AS bound_from,
                   substring(pg_get_expr(child.relpartbound, child.oid) FROM 'TO \(''([^'']+)''\)')::timestamptz AS bound_to
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = format('%I.%I', '@schema', spec.name)::regclass AND NOT inh.inhdetachpending
        ) AS b;
        -- from the oldest partition still inside retention (none yet: the current one), so
        -- periods missed while maintenance was down are filled, not only the runway
        lower_bound := least(current_start, greatest(
            date_trunc(spec.unit, coalesce(starts[1], p_now) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
            date_trunc(spec.unit, (p_now - spec.keep) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'));
        WHILE lower_bound <= current_start + spec.runway * step LOOP
            upper_bound := lower_bound + step;
            -- only the parts of the period no partition covers yet: after a granularity
            -- change the existing partitions stay, and new ones fill the gaps around them
            free_from := lower_bound;
            WHILE free_from < upper_bound LOOP
                FOR i IN 1 .. coalesce(array_length(starts, 1), 0) LOOP
                    IF starts[i] <= free_from AND ends[i] > free_from THEN
                        free_from := ends[i];
                    END IF;
                END LOOP;
                EXIT WHEN free_from >= upper_bound;
                free_to := upper_bound;
                FOR i IN 1 .. coalesce(array_length(starts, 1), 0) LOOP
                    IF starts[i] > free_from AND starts[i] < free_to THEN
                        free_to := starts[i];
                    END IF;
                END LOOP;
                -- a gap that starts off the period's grid is named to the minute
                partition_name := spec.name || '_p' || to_char(free_from AT TIME ZONE 'UTC',
                    CASE WHEN free_from = lower_bound THEN spec.suffix ELSE 'YYYYMMDDHH24MI' END);
                existing := to_regclass(format('%I.%I', '@schema', partition_name));
                -- created as a table of its own (no lock on the parent), then attached
                -- (SHARE UPDATE EXCLUSIVE on the parent: writes and reads of it go on)
                IF free_to > p_now - spec.keep AND existing IS NULL THEN
                    action := 'create';
                    statement := format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS '
                        'INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING STORAGE INCLUDING COMPRESSION)',
                        '@schema', partition_name, '@schema', spec.name);
                    RETURN NEXT;
                END IF;
                IF free_to > p_now - spec.keep AND (existing IS NULL
                        OR NOT EXISTS (SELECT FROM pg_inherits WHERE inhrelid = existing)) THEN
                    action := 'attach';
                    statement := format(
                        'ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
                        '@schema', spec.name, '@schema', partition_name, free_from, free_to);
                    RETURN NEXT;
                END IF;
                free_from := free_to;
            END LOOP;
            lower_bound := upper_bound;
        END LOOP;
        -- past retention: detach, unlink, drop (each its own transaction)
        FOR part IN
            SELECT child.relname, pg_get_expr(child.relpartbound, child.oid) AS bound
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = format('%I.%I', '@schema', spec.name)::regclass AND NOT inh.inhdetachpending
            ORDER BY child.relname
        LOOP
            CONTINUE WHEN substring(part.bound FROM 'TO \(''([^'']+)''\)')::timestamptz > p_now - spec.keep;
            partition_name := part.relname;
            action := 'detach';
            statement := format('ALTER TABLE %I.%I DETACH PARTITION %I.%I',
                '@schema', spec.name, '@schema', part.relname)
                || CASE WHEN p_concurrently THEN ' CONCURRENTLY' ELSE '' END;
            RETURN NEXT;
            action := 'unlink';
            statement := format('ALTER TABLE %I.%I DROP CONSTRAINT IF EXISTS %I',
                '@schema', part.relname, spec.fk);
            RETURN NEXT;
            action := 'drop';
            statement := format('DROP TABLE %I.%I', '@schema', part.relname);
            RETURN NEXT;
        END LOOP;
        -- detached by an earlier run whose next steps did not get their lock: finish it
        FOR part IN
            SELECT child.relname
            FROM pg_class AS child
            WHERE child.relnamespace = '@schema'::regnamespace
                AND child.relkind = 'r' AND NOT child.relispartition
                AND child.relname ~ ('^' || spec.name || '_p[0-9]{8}([0-9]{2}){0,2}$')
                AND NOT EXISTS (SELECT FROM pg_inherits AS inh WHERE inh.inhrelid = child.oid)
            ORDER BY child.relname
        LOOP
            digits := substring(part.relname FROM '_p([0-9]+)$');
            lower_bound := to_timestamp(digits, CASE length(digits) WHEN 8 THEN 'YYYYMMDD'
                WHEN 10 THEN 'YYYYMMDDHH24' ELSE 'YYYYMMDDHH24MI' END);
            CONTINUE WHEN lower_bound + step > p_now - spec.keep;
            partition_name := part.relname;
            action := 'unlink';
            statement := format('ALTER TABLE %I.%I DROP CONSTRAINT IF EXISTS %I',
                '@schema', part.relname, spec.fk);
            RETURN NEXT;
            action := 'drop';
            statement := format('DROP TABLE %I.%I', '@schema', part.relname);
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION @qschema.partition_steps(timestamptz, boolean) FROM public;
GRANT EXECUTE ON FUNCTION @qschema.partition_steps(timestamptz, boolean) TO @owner
