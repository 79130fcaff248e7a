"""Retention maintenance and health checks: global (cross-tenant) jobs for the operator."""

from __future__ import annotations

from agentddl.generator.model import tuning
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS
from agentddl.generator.model.states import effective_status
from agentddl.generator.render.citus.layout import MAINTAIN
from agentddl.generator.render.queries.base import Ctx, Query, seconds, where

BOUND = "substring(pg_catalog.pg_get_expr(child.relpartbound, child.oid) FROM '{word} \\(''([^'']+)''\\)')"


def ops_queries(c: Ctx) -> tuple[Query, ...]:
    return (
        purge_finished_runs(c),
        purge_outbox(c),
        maintain_partitions(c),
        health_stuck_runs(c),
        health_expired_leases(c),
        health_outbox_lag(c),
        health_dead_letters(c),
        health_partition_runway(c),
    )


def _batch_default(c: Ctx) -> str:
    return f"batch_size integer (suggested {tuning.batch_size(c.model.profile)})"


def expired_tree_guard(c: Ctx, alias: str, cutoff: str) -> str:
    """NOT EXISTS a descendant of run `alias` that is live or finished after `cutoff`:
    deleting a run cascades to its whole subtree, so a tree goes only once all of it has
    expired. UNION (not ALL) ends the walk even if parent links ever form a cycle."""
    cols = c.cols("d", "run_id") + ", d.finished_at"
    pinned = [f"d.{t} = :{t}" for t in c.keyed()] if c.distributed else []  # each runs scan on one shard
    parent = " AND ".join(
        [*(f"d.{t} = {{p}}.{t}" for t in c.keyed()), *pinned, "d.parent_run_id = {p}.run_id"]
    )
    return (
        "NOT EXISTS (\n"
        f"            WITH RECURSIVE tree ({c.names('run_id')}, finished_at) AS (\n"
        f"                SELECT {cols} FROM {c.t('runs')} AS d\n"
        f"                WHERE {parent.format(p=alias)}\n"
        "                UNION\n"
        f"                SELECT {cols} FROM {c.t('runs')} AS d\n"
        f"                JOIN tree AS t ON {parent.format(p='t')}\n"
        "            )\n"
        "            SELECT 1 FROM tree\n"
        f"            WHERE tree.finished_at IS NULL OR tree.finished_at >= {cutoff}\n"
        "        )"
    )


def purge_finished_runs(c: Ctx) -> Query:
    keep = c.model.profile.retention.runs
    sql = f"""DELETE FROM {c.t("runs")} AS r
WHERE {" AND ".join([*c.shard_filter("r"), f"({c.cols('r', 'run_id')})"])} IN (
    SELECT {c.cols("f", "run_id")}
    FROM {c.t("runs")} AS f
    {
        where(
            *c.shard_filter("f"),
            "f.finished_at IS NOT NULL",
            f"f.finished_at < now() - {seconds(keep)}",
            expired_tree_guard(c, "f", f"now() - {seconds(keep)}"),
            pad=4,
        )
    }
    ORDER BY f.finished_at
    LIMIT CAST(:batch_size AS integer)
    FOR UPDATE SKIP LOCKED
)"""
    doc = (
        f"Retention: delete one batch of runs finished more than {keep} s ago (the",
        "profile's retention.runs), with their attempts, checkpoints, events, operations",
        "and messages (FK cascade). A run whose subtree still holds a live run or one",
        "finished inside the window waits (the cascade would take it). Repeat until",
        "it deletes 0 rows; short batches keep locks and WAL bursts small. Runs as the",
        "owner role (the app may not delete).",
        f"index: {c.path('purge_finished_runs').index}",
        "returns: rows deleted",
    )
    return Query("purge_finished_runs", "!", doc, sql, params=tuple([*c.shard_param(), _batch_default(c)]))


def _older(keep: int) -> str:
    return f"d.delivered_at < now() - {seconds(keep)}"


def purge_outbox(c: Ctx) -> Query:
    keep = c.model.profile.retention.outbox_delivered
    sql = f"""DELETE FROM {c.t("outbox")} AS m
WHERE {" AND ".join([*c.shard_filter("m"), f"({c.cols('m', 'message_id')})"])} IN (
    SELECT {c.cols("d", "message_id")}
    FROM {c.t("outbox")} AS d
    {where(*c.shard_filter("d"), "d.delivered_at IS NOT NULL", _older(keep), pad=4)}
    ORDER BY d.delivered_at
    LIMIT CAST(:batch_size AS integer)
    FOR UPDATE SKIP LOCKED
)"""
    doc = (
        f"Retention: delete one batch of messages delivered more than {keep} s ago (the",
        "profile's retention.outbox_delivered). Repeat until it deletes 0 rows. Runs as",
        "the owner role (app and relay may not delete).",
        f"index: {c.path('purge_outbox').index}",
        "returns: rows deleted",
    )
    return Query("purge_outbox", "!", doc, sql, params=tuple([*c.shard_param(), _batch_default(c)]))


def _partitioned(c: Ctx) -> list[tuple[str, int]]:
    return [(t.name, t.partitioning.runway) for t in c.model.tables if t.partitioning]


def maintain_partitions(c: Ctx) -> Query:
    if c.distributed:
        return _citus_maintain_partitions(c)
    if c.model.partitions_by_partman:
        parents = ", ".join(f"('{c.model.schema}.{name}')" for name, _ in _partitioned(c))
        sql = (
            "SELECT 'maintained' AS action, t.parent_table AS partition_name\n"
            f"FROM (VALUES {parents}) AS t (parent_table),\n"
            "    LATERAL partman.run_maintenance(p_parent_table := t.parent_table) AS done\n"
            "ORDER BY t.parent_table"
        )
        doc: tuple[str, ...] = (
            "Create the partitions ahead of now and drop those past retention, via pg_partman's",
            "run_maintenance for each of this schema's partitioned tables. Run it on a schedule",
            "as the role that owns the tables (creating and detaching partitions needs it).",
            "index: none (catalog work)",
            "returns: one row per partitioned table (action maintained, partition_name)",
        )
        return Query("maintain_partitions", "", doc, sql, params=tuple([]))
    sql = f"CALL {c.t('maintain_partitions')}()"
    doc = (
        "Create the partitions ahead of now, detach those past retention, then drop them:",
        "the steps of partition_steps(), each in a transaction of its own under a",
        f"{STEP_LOCK_TIMEOUT_MS} ms lock_timeout, retried after a pause, so the queue never waits",
        "on maintenance for long. Run it on a schedule on a connection of its own, outside",
        "any transaction (it commits after each step), as a member of the owner role; a",
        "step that keeps losing its lock is left for the next run (WARNING lines name it).",
        "index: none (catalog work)",
        "returns: nothing (a NOTICE per step done)",
    )
    return Query("maintain_partitions", "!", doc, sql, params=tuple([]))


def _citus_maintain_partitions(c: Ctx) -> Query:
    doc = (
        "Create the partitions ahead of now and drop those past retention with Citus's",
        "create_time_partitions and drop_old_time_partitions (citus.sql): each new partition",
        "is distributed with its parent. Run it on the coordinator, on a schedule, as a",
        "member of the owner role. Catalog work on every node: not a tenant's query.",
        "index: none (catalog work)",
        "returns: nothing",
    )
    return Query("maintain_partitions", "!", doc, f"CALL {c.t(MAINTAIN)}()", params=())


def health_stuck_runs(c: Ctx) -> Query:
    history = min(c.model.profile.retention.events, c.model.profile.retention.checkpoints)
    sql = f"""SELECT {c.cols("q", "run_id")}, q.run_created_at AS created_at, r.kind, r.status, r.updated_at,
    q.attempt_no, q.worker_id, CASE WHEN q.state = 'running' THEN q.visible_at END AS lease_expires_at,
    q.run_created_at + {seconds(history)} - now() AS history_retention_left,
    {effective_status("r", "q")} AS effective_status
FROM {c.t("run_queue")} AS q
JOIN {c.t("runs")} AS r ON {c.join("r", "q", "run_id")}
{
        where(
            "q.state IN ('running', 'waiting')",
            "q.run_created_at < now() - CAST(:stale_seconds AS integer) * interval '1 second'",
        )
    }
ORDER BY q.run_created_at
LIMIT CAST(:limit AS integer)"""
    doc = (
        "Live runs (running or waiting) created more than stale_seconds ago, oldest first,",
        "with their attempt and effective status: running only while the lease is live;",
        "claimable once it ran out (the next claim takes it over), failed if no attempts",
        "are left. It tells a long healthy run from a stuck one, and shows the time left",
        "before the history retention drops their events and checkpoints. It reads the",
        "live set (run_queue) whole: that table holds only the runs in flight.",
        "index: none (the live set is small), then runs_pkey per row",
    )
    return Query("health_stuck_runs", "", doc, sql, params=tuple(["stale_seconds integer", "limit integer"]))


def health_expired_leases(c: Ctx) -> Query:
    sql = f"""SELECT count(*) AS expired_leases, min(q.visible_at) AS oldest_expiry,
    coalesce(extract(epoch FROM now() - min(q.visible_at)), 0) AS overdue_seconds,
    count(*) FILTER (WHERE q.attempt_no >= q.max_attempts) AS attempts_spent
FROM {c.t("run_queue")} AS q
{where("q.visible_at < now()", "q.state = 'running'")}"""
    doc = (
        "Running live rows past their lease: their runs are claimable, and the next claim",
        "takes each over. Many, for longer than a poll interval, means no worker is",
        "claiming. attempts_spent: runs whose last attempt ran out (effectively failed;",
        "expire_leases records it).",
        f"index: {c.path('health_expired_leases').index}",
        "returns: expired_leases, oldest_expiry, overdue_seconds, attempts_spent",
    )
    return Query("health_expired_leases", "^", doc, sql, params=tuple([]))


def health_outbox_lag(c: Ctx) -> Query:
    sql = f"""SELECT count(*) AS pending, min(m.available_at) AS oldest_available_at,
    coalesce(extract(epoch FROM now() - min(m.available_at)), 0) AS lag_seconds
FROM {c.t("outbox")} AS m
{where("m.delivered_at IS NULL", "m.dead_at IS NULL", "m.available_at <= now()")}"""
    doc = (
        "Messages due but not delivered (dead letters aside), and how long the oldest has waited.",
        f"index: {c.path('health_outbox_lag').index}",
        "returns: pending, oldest_available_at, lag_seconds",
    )
    return Query("health_outbox_lag", "^", doc, sql, params=tuple([]))


def health_dead_letters(c: Ctx) -> Query:
    sql = f"""SELECT count(*) AS dead_letters, min(m.dead_at) AS oldest_dead_at,
    coalesce(extract(epoch FROM now() - min(m.dead_at)), 0) AS oldest_seconds
FROM {c.t("outbox")} AS m
{where("m.dead_at IS NOT NULL")}"""
    doc = (
        "Dead-lettered messages: each one a consumer never accepted within max_attempts.",
        "Alert on any; dead_letters lists them.",
        f"index: {c.path('health_dead_letters').index}",
        "returns: dead_letters, oldest_dead_at, oldest_seconds",
    )
    return Query("health_dead_letters", "^", doc, sql, params=tuple([]))


def health_partition_runway(c: Ctx) -> Query:
    wanted = ",\n        ".join(f"('{name}', {runway})" for name, runway in _partitioned(c))
    sql = f"""WITH wanted (table_name, runway) AS (
    VALUES
        {wanted}
),
bounds AS (
    SELECT parent.relname::text AS table_name,
        {BOUND.format(word="FROM")}::timestamptz AS lower_bound,
        {BOUND.format(word="TO")}::timestamptz AS upper_bound
    FROM pg_catalog.pg_inherits AS inh
    JOIN pg_catalog.pg_class AS parent ON parent.oid = inh.inhparent
    JOIN pg_catalog.pg_class AS child ON child.oid = inh.inhrelid
    JOIN pg_catalog.pg_namespace AS ns ON ns.oid = parent.relnamespace
    {where(f"ns.nspname = '{c.model.schema}'", "parent.relkind = 'p'", pad=4)}
)
SELECT w.table_name, w.runway AS wanted_runway, count(b.lower_bound) AS partitions,
    count(b.lower_bound) FILTER (WHERE b.lower_bound > now()) AS future_partitions,
    max(b.upper_bound) AS covered_until,
    count(b.lower_bound) FILTER (WHERE b.lower_bound > now()) >= w.runway AS ok
FROM wanted AS w
LEFT JOIN bounds AS b ON b.table_name = w.table_name
GROUP BY w.table_name, w.runway
ORDER BY w.table_name"""
    doc = (
        "How far ahead partitions exist, per partitioned table, from the catalog",
        "(pg_inherits, pg_class; works for pg_partman's partitions too). ok = false:",
        "maintain_partitions is late, and writes past covered_until will fail.",
        "index: none (catalog query)",
        "returns: table_name, wanted_runway, partitions, future_partitions, covered_until, ok",
    )
    return Query("health_partition_runway", "", doc, sql, params=tuple([]))
