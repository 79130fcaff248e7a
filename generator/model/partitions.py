"""Partition lifecycle: generated maintenance (a plan function and the procedure that
carries it out), or pg_partman's configuration.

Maintenance never stalls the queue: every statement that takes a strong lock runs in a
transaction of its own, under a short lock_timeout, and is retried a few times after a
pause; a step that keeps losing is left for the next run (the runway leaves room for it).
A new partition is created as a table of its own, then attached (SHARE UPDATE EXCLUSIVE
on the parent: history writes and reads go on). An expired one is detached, then its
foreign key to runs is removed (the one ACCESS EXCLUSIVE lock on runs, for a catalog
change), then it is dropped (nothing locked but itself).
"""

from __future__ import annotations

from agentddl.generator.model.names import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import Partitioning, SqlBlock, Table

# A step waits at most this long for a lock (so the workload queued behind it waits
# about as long), then steps back, pauses and tries again.
STEP_LOCK_TIMEOUT_MS = 10
STEP_TRIES = 6  # pauses of 50 ms, doubling: about 1.5 s of retrying per step
FIRST_PAUSE = 0.05


def _specs(tables: tuple[Table, ...]) -> str:
    rows = []
    for table in tables:
        part = table.partitioning
        if part:
            keep = f"interval '{part.retention_seconds} seconds'"
            fk = next(k.name for k in table.foreign_keys if part.column in k.columns)
            suffix = part.period.suffix
            rows.append(f"('{table.name}', '{part.granularity}', {keep}, {part.runway}, '{suffix}', '{fk}')")
    return ",\n            ".join(rows)


def _bound(word: str, expression: str) -> str:
    """A partition's FROM or TO bound, read back from pg_get_expr (as timestamptz)."""
    return f"substring({expression} FROM '{word} \\(''([^'']+)''\\)')::timestamptz"


def _retire(schema: str, indent: str) -> str:
    """RETURN NEXT the steps that remove detached table part.relname: its foreign key to
    runs (the only step that locks runs, ACCESS EXCLUSIVE, for a catalog change), then
    the table itself (no lock on runs any more)."""
    lines = [
        "action := 'unlink';",
        "statement := format('ALTER TABLE %I.%I DROP CONSTRAINT IF EXISTS %I',",
        f"    '{schema}', part.relname, spec.fk);",
        "RETURN NEXT;",
        "action := 'drop';",
        f"statement := format('DROP TABLE %I.%I', '{schema}', part.relname);",
        "RETURN NEXT;",
    ]
    return "\n".join(indent + line for line in lines)


def plan_function(s: Scope, tables: tuple[Table, ...]) -> SqlBlock:
    schema = s.profile.schema_name
    q = quote(schema)
    parent = f"format('%I.%I', '{schema}', spec.name)::regclass"
    # Bounds go out as text (%L) and come back from pg_get_expr: fixed date settings make the
    # round trip exact whatever the caller's session uses (non-ISO styles print ambiguous
    # zone abbreviations, e.g. IST).
    body = f"""CREATE FUNCTION {q}.partition_steps(
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
            {_specs(tables)}
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
            WHERE inh.inhparent = {parent} AND inh.inhdetachpending
            ORDER BY child.relname
        LOOP
            partition_name := part.relname;
            action := 'finalize';
            statement := format('ALTER TABLE %I.%I DETACH PARTITION %I.%I FINALIZE',
                '{schema}', spec.name, '{schema}', part.relname);
            RETURN NEXT;
            IF {_bound("TO", "part.bound")} <= p_now - spec.keep THEN
{_retire(schema, " " * 16)}
            END IF;
        END LOOP;
        -- from the oldest partition still inside retention (none yet: the current one), so
        -- periods missed while maintenance was down are filled, not only the runway
        current_start := date_trunc(spec.unit, p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        -- the ranges the attached partitions cover, oldest first
        SELECT coalesce(array_agg(b.bound_from ORDER BY b.bound_from), '{{}}'),
               coalesce(array_agg(b.bound_to ORDER BY b.bound_from), '{{}}')
        INTO starts, ends
        FROM (
            SELECT {_bound("FROM", "pg_get_expr(child.relpartbound, child.oid)")} AS bound_from,
                   {_bound("TO", "pg_get_expr(child.relpartbound, child.oid)")} AS bound_to
            FROM pg_inherits AS inh
            JOIN pg_class AS child ON child.oid = inh.inhrelid
            WHERE inh.inhparent = {parent} AND NOT inh.inhdetachpending
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
                existing := to_regclass(format('%I.%I', '{schema}', partition_name));
                -- created as a table of its own (no lock on the parent), then attached
                -- (SHARE UPDATE EXCLUSIVE on the parent: writes and reads of it go on)
                IF free_to > p_now - spec.keep AND existing IS NULL THEN
                    action := 'create';
                    statement := format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS '
                        'INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING STORAGE INCLUDING COMPRESSION)',
                        '{schema}', partition_name, '{schema}', spec.name);
                    RETURN NEXT;
                END IF;
                IF free_to > p_now - spec.keep AND (existing IS NULL
                        OR NOT EXISTS (SELECT FROM pg_inherits WHERE inhrelid = existing)) THEN
                    action := 'attach';
                    statement := format(
                        'ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
                        '{schema}', spec.name, '{schema}', partition_name, free_from, free_to);
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
            WHERE inh.inhparent = {parent} AND NOT inh.inhdetachpending
            ORDER BY child.relname
        LOOP
            CONTINUE WHEN {_bound("TO", "part.bound")} > p_now - spec.keep;
            partition_name := part.relname;
            action := 'detach';
            statement := format('ALTER TABLE %I.%I DETACH PARTITION %I.%I',
                '{schema}', spec.name, '{schema}', part.relname)
                || CASE WHEN p_concurrently THEN ' CONCURRENTLY' ELSE '' END;
            RETURN NEXT;
{_retire(schema, " " * 12)}
        END LOOP;
        -- detached by an earlier run whose next steps did not get their lock: finish it
        FOR part IN
            SELECT child.relname
            FROM pg_class AS child
            WHERE child.relnamespace = '{schema}'::regnamespace
                AND child.relkind = 'r' AND NOT child.relispartition
                AND child.relname ~ ('^' || spec.name || '_p[0-9]{{8}}([0-9]{{2}}){{0,2}}$')
                AND NOT EXISTS (SELECT FROM pg_inherits AS inh WHERE inh.inhrelid = child.oid)
            ORDER BY child.relname
        LOOP
            digits := substring(part.relname FROM '_p([0-9]+)$');
            lower_bound := to_timestamp(digits, CASE length(digits) WHEN 8 THEN 'YYYYMMDD'
                WHEN 10 THEN 'YYYYMMDDHH24' ELSE 'YYYYMMDDHH24MI' END);
            CONTINUE WHEN lower_bound + step > p_now - spec.keep;
            partition_name := part.relname;
{_retire(schema, " " * 12)}
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION {q}.partition_steps(timestamptz, boolean) FROM public;
GRANT EXECUTE ON FUNCTION {q}.partition_steps(timestamptz, boolean) TO {quote(s.profile.role("owner"))}"""
    return SqlBlock(
        "partition_steps",
        body,
        "the partition maintenance plan: each statement to run on its own, in order (as the table's owner)",
    )


def maintenance_procedure(s: Scope) -> SqlBlock:
    """CALL maintain_partitions(): the plan carried out, step by step. A procedure that
    commits can have no SET clause, so it pins search_path, and takes the role that owns
    the step's table (so a new partition belongs to its parent's owner), anew in each
    step's transaction."""
    schema = s.profile.schema_name
    q = quote(schema)
    owner = s.profile.role("owner")
    table = f"pg_catalog.format('%I.%I', '{schema}', step.table_name)::regclass"
    table_owner = (
        "(SELECT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class AS c\n"
        f"                    WHERE c.oid = {table})"
    )
    body = f"""CREATE PROCEDURE {q}.maintain_partitions(p_now timestamptz DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    at timestamptz := coalesce(p_now, now());
    step record;
    tries integer;
    done boolean;
    reason text;
    skipped text[] := '{{}}';
BEGIN
    FOR step IN SELECT * FROM {q}.partition_steps(at, false) LOOP
        CONTINUE WHEN step.partition_name = ANY (skipped);
        tries := 0;
        LOOP
            tries := tries + 1;
            BEGIN
                PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
                PERFORM pg_catalog.set_config('role', {table_owner}, true);
                PERFORM pg_catalog.set_config('lock_timeout', '{STEP_LOCK_TIMEOUT_MS}ms', true);
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
            IF done IS NULL OR tries >= {STEP_TRIES} THEN
                RAISE WARNING 'maintain_partitions: % % failed after % tries, kept for the next run: %',
                    step.action, step.partition_name, tries, reason;
                skipped := skipped || step.partition_name;
                EXIT;
            END IF;
            PERFORM pg_catalog.pg_sleep({FIRST_PAUSE} * 2 ^ (tries - 1));
        END LOOP;
    END LOOP;
END
$$;
REVOKE ALL ON PROCEDURE {q}.maintain_partitions(timestamptz) FROM public;
GRANT EXECUTE ON PROCEDURE {q}.maintain_partitions(timestamptz) TO {quote(owner)}"""
    return SqlBlock(
        "maintain_partitions",
        body,
        "partition maintenance: each step its own short transaction, retried, never a long lock "
        "(members of the owner role call it)",
    )


def bootstrap(s: Scope) -> SqlBlock:
    q = quote(s.profile.schema_name)
    if s.profile.retention.partition_manager == "pg_partman":
        return SqlBlock(
            "partitions_bootstrap",
            "SELECT partman.run_maintenance()",
            "pg_partman creates the first partitions",
        )
    sql = (
        "DO $$\nDECLARE\n    step record;\nBEGIN\n"
        f"    FOR step IN SELECT * FROM {q}.partition_steps() WHERE action IN ('create', 'attach') LOOP\n"
        "        EXECUTE step.statement;\n    END LOOP;\nEND\n$$"
    )
    return SqlBlock(
        "partitions_bootstrap",
        sql,
        "the current and future partitions exist before the first write (in this transaction)",
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
