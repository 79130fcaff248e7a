"""Partition lifecycle: a generated maintenance function, or pg_partman's configuration."""

from __future__ import annotations

from agentddl.generator.model.blocks import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import Partitioning, SqlBlock, Table

_LOCK_TIMEOUT = "5s"  # maintenance waits briefly for locks, then retries on its next run


def _specs(tables: tuple[Table, ...]) -> str:
    rows = []
    for table in tables:
        part = table.partitioning
        if part:
            keep = f"{part.retention_seconds} seconds"
            rows.append(f"('{table.name}', '{part.granularity}', interval '{keep}', {part.runway})")
    return ",\n            ".join(rows)


def maintenance_function(s: Scope, tables: tuple[Table, ...]) -> SqlBlock:
    schema = s.profile.schema_name
    q = quote(schema)
    # Bounds go out as text (%L) and come back from pg_get_expr: fixed date settings make the
    # round trip exact whatever the caller's session uses (non-ISO styles print ambiguous
    # zone abbreviations, e.g. IST).
    body = f"""CREATE FUNCTION {q}.maintain_partitions(p_now timestamptz DEFAULT now())
RETURNS TABLE (action text, partition_name text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET DateStyle = 'ISO, YMD'
AS $$
DECLARE
    spec record;
    part record;
    lower_bound timestamptz;
    upper_bound timestamptz;
    current_start timestamptz;
    starts timestamptz[];
    ends timestamptz[];
    free_from timestamptz;
    free_to timestamptz;
BEGIN
    PERFORM set_config('lock_timeout', '{_LOCK_TIMEOUT}', true);
    FOR spec IN
        SELECT * FROM (VALUES
            {_specs(tables)}
        ) AS specs (table_name, unit, keep, runway)
    LOOP
        current_start := date_trunc(spec.unit, p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        -- the ranges the existing partitions cover, oldest first
        SELECT coalesce(array_agg(b.bound_from ORDER BY b.bound_from), '{{}}'),
               coalesce(array_agg(b.bound_to ORDER BY b.bound_from), '{{}}')
        INTO starts, ends
        FROM (
            SELECT substring(pg_get_expr(child.relpartbound, child.oid)
                       FROM 'FROM \\(''([^'']+)''\\)')::timestamptz AS bound_from,
                   substring(pg_get_expr(child.relpartbound, child.oid)
                       FROM 'TO \\(''([^'']+)''\\)')::timestamptz AS bound_to
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = format('%I.%I', '{schema}', spec.table_name)::regclass
        ) AS b;
        -- from the oldest partition still inside retention (none yet: the current one), so
        -- periods missed while maintenance was down are filled, not only the runway
        lower_bound := least(current_start, greatest(
            date_trunc(spec.unit, coalesce(starts[1], p_now) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
            date_trunc(spec.unit, (p_now - spec.keep) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'));
        WHILE lower_bound <= current_start + spec.runway * ('1 ' || spec.unit)::interval LOOP
            upper_bound := lower_bound + ('1 ' || spec.unit)::interval;
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
                partition_name := spec.table_name || '_p'
                    || to_char(free_from AT TIME ZONE 'UTC', 'YYYYMMDD');
                IF free_to > p_now - spec.keep
                    AND to_regclass(format('%I.%I', '{schema}', partition_name)) IS NULL THEN
                    EXECUTE format(
                        'CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)',
                        '{schema}', partition_name, '{schema}', spec.table_name,
                        free_from, free_to);
                    action := 'created';
                    RETURN NEXT;
                END IF;
                free_from := free_to;
            END LOOP;
            lower_bound := upper_bound;
        END LOOP;
        FOR part IN
            SELECT child.relname, pg_get_expr(child.relpartbound, child.oid) AS bound
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = format('%I.%I', '{schema}', spec.table_name)::regclass
            ORDER BY child.relname
        LOOP
            upper_bound := substring(part.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz;
            IF upper_bound <= p_now - spec.keep THEN
                BEGIN
                    EXECUTE format('ALTER TABLE %I.%I DETACH PARTITION %I.%I',
                        '{schema}', spec.table_name, '{schema}', part.relname);
                    EXECUTE format('DROP TABLE %I.%I', '{schema}', part.relname);
                    action := 'dropped';
                EXCEPTION WHEN OTHERS THEN
                    -- keep it for the next run; the partitions created above still commit
                    RAISE WARNING 'maintain_partitions: % kept: %', part.relname, SQLERRM;
                    action := 'drop_failed';
                END;
                partition_name := part.relname;
                RETURN NEXT;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION {q}.maintain_partitions(timestamptz) FROM public;
GRANT EXECUTE ON FUNCTION {q}.maintain_partitions(timestamptz) TO {quote(s.profile.role("owner"))}"""
    return SqlBlock(
        "maintain_partitions",
        body,
        "creates partitions ahead, drops expired ones; runs as its owner (owner role may call)",
    )


def bootstrap(s: Scope) -> SqlBlock:
    q = quote(s.profile.schema_name)
    if s.profile.retention.partition_manager == "pg_partman":
        return SqlBlock(
            "partitions_bootstrap",
            "SELECT partman.run_maintenance()",
            "pg_partman creates the first partitions",
        )
    return SqlBlock(
        "partitions_bootstrap",
        f"SELECT count(*) FROM {q}.maintain_partitions()",
        "the current and future partitions exist before the first write",
    )


def partman(s: Scope, tables: tuple[Table, ...]) -> tuple[SqlBlock, ...]:
    """pg_partman takes over creation and retention (its own run_maintenance job).
    Versions 4 and 5 name create_parent's arguments differently: branch on the version."""
    blocks = [
        SqlBlock(
            "partman_extension",
            "CREATE SCHEMA IF NOT EXISTS partman;\nCREATE EXTENSION IF NOT EXISTS pg_partman SCHEMA partman",
            "pg_partman manages partitions (profile: retention.partition_manager)",
        )
    ]
    for table in tables:
        if table.partitioning:
            blocks.append(_partman_table(s.profile.schema_name, table.name, table.partitioning))
    return tuple(blocks)


def _partman_table(schema: str, name: str, part: Partitioning) -> SqlBlock:
    parent = f"{schema}.{name}"
    common = (
        f"p_parent_table := '{parent}', p_control := '{part.column}', "
        f"p_interval := '1 {part.granularity}', p_premake := {part.runway}"
    )
    sql = f"""DO $$
BEGIN
    IF (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pg_partman') LIKE '4.%' THEN
        PERFORM partman.create_parent({common}, p_type := 'native', p_jobmon := false);
    ELSE
        PERFORM partman.create_parent({common}, p_type := 'range', p_default_table := false);
    END IF;
    UPDATE partman.part_config
    SET retention = '{part.retention_seconds} seconds', retention_keep_table = false
    WHERE parent_table = '{parent}';
END
$$"""
    drop = (
        f"DELETE FROM partman.part_config WHERE parent_table = '{parent}';\n"
        f"DROP TABLE IF EXISTS partman.template_{schema}_{name}"
    )
    return SqlBlock(
        f"{name}_partman",
        sql,
        f"pg_partman keeps {part.runway} partitions ahead and drops expired ones",
        drop=drop,
    )
