"""Module-level helpers a delta revision carries (so it runs without agentddl installed):
`locked()` for steps that take a strong lock, `index_partitions()` for an index on a
partitioned table. Only the helpers a revision uses are written into it."""

from __future__ import annotations

LOCK_TIMEOUT = "100ms"
LOCK_ATTEMPTS = 50

_LOCKED = '''

# A step that takes a strong lock waits at most LOCK_TIMEOUT for it, so the workload
# never queues behind this migration for longer; it is retried up to LOCK_ATTEMPTS times.
LOCK_TIMEOUT = @LOCK_TIMEOUT@
LOCK_ATTEMPTS = @LOCK_ATTEMPTS@


def locked(*statements: str, guard: str | None = None) -> str:
    """`statements` as one transaction (a DO block, the same online and in `alembic
    upgrade --sql`) that gives up on a lock after LOCK_TIMEOUT and tries again after a
    growing, jittered pause. `guard`: a condition that must hold first."""
    body = [f"IF NOT coalesce(({guard}), false) THEN\\n"
            "    RAISE EXCEPTION 'agentddl: an earlier step did not finish: run this revision "
            "online (alembic upgrade, not --sql)';\\nEND IF;"] if guard else []
    for statement in statements:
        sql = "PERFORM " + statement[len("SELECT "):] if statement.startswith("SELECT ") else statement
        body.append(sql + ";")
    inner = "\\n".join(body).replace("\\n", "\\n            ")
    return f"""DO $agentddl$
DECLARE
    attempt integer := 1;
BEGIN
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '{LOCK_TIMEOUT}', true);
            {inner}
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt >= {LOCK_ATTEMPTS} THEN
                RAISE;
            END IF;
            attempt := attempt + 1;
            PERFORM pg_sleep(least(0.05 * attempt, 1.0) * (0.5 + random()));
        END;
    END LOOP;
END
$agentddl$"""
'''

PARTITIONS = '''

# The partitions of a table that have no index attached to a partitioned index yet,
# and the name each one's index gets.
PARTITIONS = """
SELECT format('%I.%I', n.nspname, c.relname) AS partition,
       format('%I', left(c.relname || '_' || :suffix, 63)) AS child,
       format('%I.%I', n.nspname, left(c.relname || '_' || :suffix, 63)) AS qualified
FROM pg_catalog.pg_inherits AS i
JOIN pg_catalog.pg_class AS c ON c.oid = i.inhrelid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
WHERE i.inhparent = CAST(:parent AS regclass)
  AND NOT EXISTS (
      SELECT FROM pg_catalog.pg_inherits AS a
      JOIN pg_catalog.pg_index AS x ON x.indexrelid = a.inhrelid
      WHERE a.inhparent = CAST(:index AS regclass) AND x.indrelid = c.oid)
ORDER BY c.relname
"""


def index_partitions(parent: str, index: str, definition: str, suffix: str) -> None:
    """Build the partitioned index `index` (created ON ONLY `parent`) on each partition
    CONCURRENTLY and attach it: PostgreSQL cannot build a partitioned index concurrently.
    The partitions are the ones that exist when this runs; partitions created meanwhile
    get their index from PostgreSQL itself, and `index` is valid once all have one."""
    if op.get_context().as_sql:  # offline: the partitions are known only at run time
        op.execute(
            f"-- online only: for each partition P of {parent} (pg_inherits) without an index "
            f"attached to {index}:\\n-- CREATE INDEX CONCURRENTLY P_{suffix} ON P {definition}; "
            f"ALTER INDEX {index} ATTACH PARTITION P_{suffix}"
        )
        return
    arguments = {"parent": parent, "index": index, "suffix": suffix}
    for partition, child, qualified in op.get_bind().execute(sa.text(PARTITIONS), arguments).all():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {qualified}")  # left by an interrupted run
        op.execute(f"CREATE INDEX CONCURRENTLY {child} ON {partition} {definition}")
        op.execute(f"ALTER INDEX {index} ATTACH PARTITION {qualified}")  # no write-blocking lock
'''


LOCKED = _LOCKED.replace("@LOCK_TIMEOUT@", repr(LOCK_TIMEOUT)).replace("@LOCK_ATTEMPTS@", str(LOCK_ATTEMPTS))
