"""PLAN.md section 4: what expires how, how often each job runs, and the exact
scheduler entries (pg_cron or an external cron / Kubernetes CronJob)."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel, features
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS
from agentddl.generator.profile.units import format_duration
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md

TITLE = "## 4. Archival and maintenance schedule"


def schedule_section(model: SchemaModel) -> str:
    return "\n\n".join(
        [
            TITLE,
            "### Retention windows",
            windows_table(model),
            "### Jobs",
            jobs_text(model),
            "### Schedule",
            scheduler_text(model),
            "### Partition runway",
            runway_text(model),
            "### Detaching without the ACCESS EXCLUSIVE lock",
            detach_runbook(model),
        ]
    )


def _partition_manager(model: SchemaModel) -> str:
    if model.partitions_by_partman:
        return "pg_partman's `run_maintenance_proc()` detaches and drops it"
    return f"`{model.schema}.maintain_partitions()` detaches it, then drops it in a later transaction"


def windows_table(model: SchemaModel) -> str:
    rows = []
    for table in fig.partitioned(model):
        part = fig.partitioning(table)
        rows.append(
            [
                table.name,
                format_duration(part.retention_seconds),
                f"whole {part.granularity} partition once its upper bound is older than the "
                f"window; {_partition_manager(model)}",
                part.period.maintenance_words,
            ]
        )
    for purge in fig.purges(model):
        rows.append(
            [
                f"{purge.path.table} (`{purge.column}` set)",
                format_duration(purge.retention_seconds),
                f"batched DELETE, {md.number(fig.batch_size(model))} rows per batch, oldest "
                f"first through `{purge.path.index}` (`{purge.path.name}`)",
                md.every(purge.every_minutes * 60),
            ]
        )
    return md.table(["data", "kept for", "expires by", "runs"], rows)


def _step_words(model: SchemaModel) -> str:
    if model.partitions_by_partman:
        return ""
    return (
        " Every step that takes a strong lock runs in a transaction of its own under a "
        f"{STEP_LOCK_TIMEOUT_MS} ms `lock_timeout` and is retried after a pause, so claims and "
        "step writes never queue behind it for longer; a step that keeps losing is left for "
        "the next run. A new partition is created as a table of its own and then attached "
        "(SHARE UPDATE EXCLUSIVE on the parent: history writes go on); an expired one is "
        "detached, its foreign key removed (the only ACCESS EXCLUSIVE lock on runs: the "
        "key's triggers live there), then dropped. Run it outside any transaction (it "
        "commits after each step)."
    )


def _gap_words(model: SchemaModel) -> str:
    if model.partitions_by_partman:
        return ""
    return " (after an outage also the missed periods retention still covers)"


def jobs_text(model: SchemaModel) -> str:
    grain = fig.finest_period(model)
    lines = [
        f"Partition maintenance ({grain.maintenance_words}, because the finest "
        f"partitions are {grain.adverb}: many runs per period, so a missed run costs "
        f"nothing): `{fig.partition_command(model)}`. It creates the current partition and "
        f"the runway ahead{_gap_words(model)}, and removes expired ones. Idempotent; safe "
        f"to run by hand.{_step_words(model)}",
    ]
    for purge in fig.purges(model):
        lines.append(
            f"`{purge.path.name}` {md.every(purge.every_minutes * 60)}: up to "
            f"{fig.max_batches(model, purge)} batches per run (twice the "
            f"~{md.number(purge.rows_per_day)} rows/day arriving, {purge.rows_note}), "
            "committing after each batch and stopping at the first short batch."
        )
    lines.append(
        f"Run them as a login role that is a member of `{model.profile.role('owner')}`: "
        "the app role cannot delete or drop. Deleting a run cascades to its attempts, "
        "operations and outbox rows through their run indexes."
    )
    return md.bullets(lines)


def scheduler_text(model: SchemaModel) -> str:
    if model.profile.retention.scheduler == "pg_cron":
        return pg_cron_text(model)
    return external_text(model)


def _jobs(model: SchemaModel) -> list[tuple[str, str, str]]:
    """(job name, cron expression, SQL) for every maintenance job."""
    grain = fig.finest_period(model)
    jobs = [(f"{model.schema}_partitions", grain.maintenance_cron, fig.partition_command(model))]
    jobs += [(f"{model.schema}_{p.path.name}", p.cron, fig.purge_loop(model, p)) for p in fig.purges(model)]
    return jobs


def pg_cron_text(model: SchemaModel) -> str:
    lines = [
        f"SELECT cron.schedule('{name}', '{cron}', $job$\n{sql}\n$job$);" for name, cron, sql in _jobs(model)
    ]
    return (
        "pg_cron (`retention.scheduler: pg_cron`). Run these in the database named by "
        "`cron.database_name` (or use `cron.schedule_in_database` with the same "
        "arguments plus the database name); each job's command is a single statement, "
        "so the DO blocks may COMMIT between batches.\n\n"
        + md.sql_block("\n\n".join(lines))
        + "\n\nCheck results in `cron.job_run_details` (status and return message) and "
        "alert on failures."
    )


def external_text(model: SchemaModel) -> str:
    jobs = _jobs(model)
    crontab = "\n".join(
        f'{cron} psql "$AGENTDDL_DSN" -v ON_ERROR_STOP=1 -f /etc/agentddl/{name}.sql'
        for name, cron, _ in jobs
    )
    files = "\n\n".join(f"-- /etc/agentddl/{name}.sql\n{sql};" for name, _, sql in jobs)
    return "\n\n".join(
        [
            "External scheduler (`retention.scheduler: external`): crontab entries, each "
            "running one SQL file with psql (the same statements the named queries in "
            "`queries.sql` hold, looped over batches):",
            "```cron\n" + crontab + "\n```",
            md.sql_block(files),
            "Or as a Kubernetes CronJob (one per job; the partition job shown):",
            "```yaml\n" + cronjob_yaml(model, jobs[0]) + "\n```",
        ]
    )


def cronjob_yaml(model: SchemaModel, job: tuple[str, str, str]) -> str:
    name, cron, sql = job
    return "\n".join(
        [
            "apiVersion: batch/v1",
            "kind: CronJob",
            "metadata:",
            f"  name: {name.replace('_', '-')}",
            "spec:",
            f'  schedule: "{cron}"',
            "  concurrencyPolicy: Forbid",
            "  jobTemplate:",
            "    spec:",
            "      backoffLimit: 2",
            "      template:",
            "        spec:",
            "          restartPolicy: OnFailure",
            "          containers:",
            "            - name: maintenance",
            f"              image: postgres:{model.profile.engine.version}",
            f'              command: ["psql", "-v", "ON_ERROR_STOP=1", "-c", "{sql}"]',
            "              envFrom:",
            "                - secretRef:",
            "                    name: agentddl-maintenance  # PGHOST, PGDATABASE, PGUSER, ...",
        ]
    )


def runway_text(model: SchemaModel) -> str:
    lines = []
    for table in fig.partitioned(model):
        part = fig.partitioning(table)
        lines.append(
            f"`{table.name}`: {part.runway} {part.granularity} partitions ahead "
            f"(~{md.duration(fig.runway_seconds(part))}); alert below "
            f"{max(1, part.runway // 2)}."
        )
    return (
        "`health_partition_runway` reports how far ahead partitions exist. Run it with the "
        "other health queries (every few minutes) and alert before inserts can fail:\n\n" + md.bullets(lines)
    )


def detach_runbook(model: SchemaModel) -> str:
    tables = fig.partitioned(model)
    table = next((t for t in tables if t.append_only), tables[0] if tables else None)
    if table is None:
        return "No partitions to detach in this profile."
    if not features.has(model.profile.engine.version, "detach_concurrently"):
        return "DETACH ... CONCURRENTLY needs PostgreSQL 14; use the maintenance job."
    parent = fig.qualified(model, table.name)
    suffix = table.partitioning.period.suffix if table.partitioning else "YYYYMMDD"
    child = f"{fig.qualified(model, table.name)}_p{suffix}"
    if model.partitions_by_partman:
        return _partman_runbook(model, parent, child)
    steps = f"{model.schema}.partition_steps()"
    psql = (
        "-- every maintenance step as a statement of its own (the detaches CONCURRENTLY)\n"
        f"SET lock_timeout = '{STEP_LOCK_TIMEOUT_MS}ms';\n"
        f"SET ROLE {model.profile.role('owner')};\n"
        f"SELECT statement FROM {steps} \\gexec"
    )
    finalize = (
        "-- a detach interrupted after its first transaction (cancel, crash, lock timeout)\n"
        "-- is finished by the next run (a 'finalize' step), or by hand:\n"
        f"ALTER TABLE {parent} DETACH PARTITION {child} FINALIZE;"
    )
    return (
        "A procedure cannot run `DETACH PARTITION ... CONCURRENTLY` (PostgreSQL allows it "
        "only as a statement of its own), so the maintenance procedure detaches with a "
        "brief ACCESS EXCLUSIVE lock on the parent, bounded by its lock timeout. "
        f"`{steps}` returns the same steps as statements (`p_concurrently` defaults to "
        "true): run from psql, the detaches take only SHARE UPDATE EXCLUSIVE on the parent "
        "and wait for readers without blocking writers. The foreign key to runs still costs "
        "two brief locks on runs either way: the detached table's own FK triggers are "
        "created there (SHARE ROW EXCLUSIVE), and the `unlink` step removes them (ACCESS "
        "EXCLUSIVE, a catalog change) before the drop. A step that loses its lock fails "
        "with SQLSTATE 55P03; "
        "psql stops there (ON_ERROR_STOP) and the next run starts over from the catalog:"
        f"\n\n```psql\n{psql}\n```\n\n" + md.sql_block(finalize)
    )


def _partman_runbook(model: SchemaModel, parent: str, child: str) -> str:
    sql = (
        f"-- list partitions of {parent}, oldest first\n"
        f"SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = '{parent}'::regclass\n"
        "ORDER BY inhrelid::regclass::text;\n\n"
        f"SET lock_timeout = '{STEP_LOCK_TIMEOUT_MS}ms';\n"
        f"ALTER TABLE {parent} DETACH PARTITION {child} CONCURRENTLY;\n"
        "-- if that was interrupted (cancel, crash), finish it:\n"
        f"ALTER TABLE {parent} DETACH PARTITION {child} FINALIZE;\n"
        f"DROP TABLE {child};"
    )
    return (
        "pg_partman detaches inside a transaction, so it takes a brief ACCESS EXCLUSIVE "
        "lock on the parent. An operator can detach an expired partition ahead of it with "
        "only SHARE UPDATE EXCLUSIVE on the parent. The foreign key to runs still costs "
        "two brief locks on runs: the detached table's own FK triggers are created there "
        "(SHARE ROW EXCLUSIVE), and DROP TABLE removes them (ACCESS EXCLUSIVE, an instant). "
        "Run each statement on its own (not in a transaction block), off-peak; replace the "
        "suffix with a partition past the window:\n\n" + md.sql_block(sql)
    )
