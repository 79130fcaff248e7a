"""PLAN.md section 5: three concrete failure scenarios with the profile's numbers:
trigger, impact, detection, mitigation, rollback."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentddl.generator.model import SchemaModel, Table
from agentddl.generator.model.strategies import STRATEGIES
from agentddl.generator.profile.units import format_duration
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md

TITLE = "## 5. Risks and rollback"


@dataclass(frozen=True)
class Scenario:
    title: str
    trigger: str
    impact: str
    detection: str
    mitigation: str
    rollback: str

    def render(self, number: int) -> str:
        fields = [
            ("Trigger and symptom", self.trigger),
            ("Impact", self.impact),
            ("Detection", self.detection),
            ("Mitigation", self.mitigation),
            ("Rollback", self.rollback),
        ]
        body = "\n".join(f"- **{label}:** {text}" for label, text in fields)
        return f"### 5.{number} {self.title}\n\n{body}"


def risks_section(model: SchemaModel) -> str:
    scenarios = (missing_partition(model), hot_rows(model), bad_migration(model))
    return "\n\n".join([TITLE, *(s.render(n) for n, s in enumerate(scenarios, start=1))])


def _health(model: SchemaModel, name: str) -> str:
    return f"`{fig.path(model, name).name}`"


def _shortest_history(model: SchemaModel) -> Table:
    return min(fig.partitioned(model), key=lambda t: fig.partitioning(t).retention_seconds)


def missing_partition(model: SchemaModel) -> Scenario:
    newest = min(fig.partitioned(model), key=lambda t: fig.runway_seconds(fig.partitioning(t)))
    runway = md.duration(fig.runway_seconds(fig.partitioning(newest)))
    short = _shortest_history(model)
    part = fig.partitioning(short)
    keep = part.retention_seconds
    cap = keep - part.period.seconds
    steps = md.number(model.profile.volume.steps_per_second)
    return Scenario(
        "An insert into history finds no partition",
        f"(a) partition maintenance stops (scheduler down, the job failing on its lock "
        f"timeout) and the runway of `{newest.name}` ({runway}) runs out; or (b) a run stays "
        f"live longer than `{short.name}` is kept ({format_duration(keep)}), so its "
        "`run_created_at` partition is dropped under it. Inserts fail with `no partition "
        "of relation ... found for row` (SQLSTATE 23514).",
        f"(a) every run created after the last partition fails at its first "
        f"`append_event`/`save_checkpoint`: up to {steps} steps/s stop. (b) only the old "
        "run fails, and its history and resume point are gone with the partition.",
        f"{_health(model, 'health_partition_runway')} alerting below half the runway; "
        "the scheduler's job history; for (b) "
        f"{_health(model, 'health_stuck_runs')} and any unfinished run older than "
        f"{md.duration(cap)}.",
        f"(a) run `{fig.partition_command(model)}` by hand (idempotent), then fix the "
        f"scheduler. (b) cap a run's lifetime at {md.duration(cap)} (the shortest history "
        "window minus one partition): the runtime finishes a longer run and continues it "
        "as a new run from its last checkpoint.",
        "Nothing to undo for (a): partitions are only created forward. A dropped partition "
        "is gone (only point-in-time recovery brings it back); to keep history longer, "
        "raise the retention in the profile, regenerate, and ship the changed maintenance "
        "configuration in a new revision before the next drop.",
    )


def _hot_columns(table: Table) -> list[str]:
    """Lifecycle columns whose change makes an UPDATE non-HOT: index keys and predicate
    columns, leaving out identity columns (keys, FKs, unique keys), which never change."""
    fixed = {*table.primary_key, *(c for fk in table.foreign_keys for c in fk.columns)}
    fixed |= {c for i in table.indexes if i.unique for c in i.key_columns}
    names = {c.name for c in table.columns} - fixed
    found = {c for i in table.indexes if i.method == "btree" for c in i.key_columns}
    for i in table.indexes:
        text = " ".join((i.where or "", *i.columns))
        found |= {w for w in re.findall(r"[a-z_][a-z0-9_]*", text) if w in names}
    return [c.name for c in table.columns if c.name in found and c.name in names]


def hot_rows(model: SchemaModel) -> Scenario:
    p = model.profile
    runs = model.table("runs")
    live_rows = p.volume.runs_per_day * max(1, p.retention.runs // fig.DAY)
    scale = float(dict(runs.storage).get("autovacuum_vacuum_scale_factor", "0.2"))
    dead = int(live_rows * scale)
    seconds = dead / max(1, p.volume.steps_per_second)
    return Scenario(
        "Run-row contention and autovacuum falling behind",
        f"at {md.number(p.volume.steps_per_second)} steps/s every step updates its run row "
        f"(version check) and every active attempt is renewed every "
        f"{md.duration(fig.heartbeat_seconds(model))}. Updates that change an indexed "
        f"column ({md.codes(_hot_columns(runs))} on runs) are not HOT and leave dead index "
        f"entries. With ~{md.number(live_rows)} runs kept, autovacuum starts after "
        f"~{md.number(dead)} dead rows (scale factor {scale:g}), {md.approx_time(seconds)} "
        "of peak updates; a long transaction holding back the xmin horizon stops it from "
        "cleaning anything. Retention adds brief locks on runs, each in a short transaction "
        "of its own under a lock timeout: attaching or detaching a history partition takes "
        "SHARE ROW EXCLUSIVE on runs, and removing a detached one's foreign key ACCESS "
        "EXCLUSIVE, because the foreign key's triggers live on runs.",
        "claims slow down as the claim index fills with dead entries, heartbeats arrive "
        "late, leases expire under live workers, and runs are retried needlessly "
        "(`attempt_count` climbs towards `max_attempts`).",
        f"{_health(model, 'health_expired_leases')} and "
        f"{_health(model, 'health_stuck_runs')} trending up; `pg_stat_user_tables` "
        "(`n_dead_tup`, `last_autovacuum`) for the hot tables; `pg_stat_activity` for "
        "sessions `idle in transaction` or with an old `xact_start`, and for waits of type "
        "`Lock` on runs.",
        "set `idle_in_transaction_session_timeout`; raise the hot tables' "
        "`autovacuum_vacuum_cost_limit` or lower `autovacuum_vacuum_cost_delay` (ALTER "
        f"TABLE ... SET, no rewrite); {STRATEGIES[model.strategy].relief}; run partition "
        "maintenance off-peak.",
        "storage parameters revert with `ALTER TABLE ... RESET (...)` (metadata only, "
        "no rewrite); a claim-strategy change reverts by redeploying the previous queries.",
    )


def bad_migration(model: SchemaModel) -> Scenario:
    p = model.profile
    schema_drop = next((b.drop for b in model.before if b.drop), f"DROP SCHEMA {model.schema}")
    events_kept = fig.event_rows_per_day(model) * max(1, p.retention.events // fig.DAY)
    runs_kept = p.volume.runs_per_day * max(1, p.retention.runs // fig.DAY)
    return Scenario(
        "A bad migration, and `alembic downgrade`",
        "a revision fails half-way or the new schema misbehaves under production load.",
        "the first revision runs in one transaction, so a failure leaves nothing behind; a "
        "later one (a profile change) runs step by step, online, so a failure leaves the steps "
        "before it in place and `alembic upgrade head` can simply run again. "
        f"But `alembic downgrade base` runs `{schema_drop}`: every run, checkpoint and "
        f"event goes with it (at this profile up to ~{md.number(events_kept)} events and "
        f"~{md.number(runs_kept)} runs). Roles are cluster-wide and stay.",
        "`alembic current` against the expected head; `agentddl lint` on the revision "
        "before it ships; the health queries right after it runs.",
        "backup first, always: `pg_dump -Fc -n "
        f"{model.schema}` or a verified base backup with a restore point "
        "(`SELECT pg_create_restore_point('before-migration')`) before any upgrade or "
        "downgrade. Set `lock_timeout` for migrations and retry instead of queueing "
        "behind workers.",
        "1) scale workers and the relay to zero; 2) take the backup; 3) "
        "`alembic downgrade -1` for a later revision; `downgrade base` only where the "
        "data may be lost (e.g. a failed first rollout); 4) restore with `pg_restore` if "
        "data was lost; 5) fix forward: correct the profile (or, for a database changed by "
        "hand, `agentddl generate PROFILE --out DIR --dsn DB`) and ship the next revision "
        "`agentddl generate` writes, then restart workers.",
    )
