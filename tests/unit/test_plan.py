"""PLAN.md: six sections, every index and partition accounted for, deterministic, and
visibly different for profiles that differ."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pglast
import pytest

from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import LockStrategy, load_profile, load_profile_text
from agentddl.generator.render.plan import render_plan

ROOT = Path(__file__).resolve().parents[2]
HEADINGS = (
    "## 1. Entity-relationship diagram and DDL notes",
    "## 2. Concurrency and lock plan",
    "## 3. Indexes, partitions and compression",
    "## 4. Archival and maintenance schedule",
    "## 5. Risks and rollback",
    "## 6. Failover runbook",
)
# Mermaid's relationship grammar: ENTITY <left card><line><right card> ENTITY : "label"
RELATIONSHIP = re.compile(r'^    (\w+) (\|\||\|o|\}o|\}\|)(--|\.\.)(\|\||o\||o\{|\|\{) (\w+) : "[^"]+"$')
ATTRIBUTE = re.compile(r"^        \w+ \w+( (PK|FK|UK)(, (PK|FK|UK))*)?$")


@functools.cache
def model_of(yaml_body: str = "") -> SchemaModel:
    return derive(load_profile_text(f"profile: 1\nname: test\n{yaml_body}", "<test>"))


@functools.cache
def plan_of(yaml_body: str = "") -> str:
    return render_plan(model_of(yaml_body))


def section(plan: str, number: int) -> str:
    start = plan.index(HEADINGS[number - 1])
    end = plan.index(HEADINGS[number]) if number < len(HEADINGS) else len(plan)
    return plan[start:end]


def mermaid(plan: str) -> list[str]:
    match = re.search(r"```mermaid\n(.*?)\n```", plan, re.S)
    assert match, "no mermaid block"
    return match.group(1).splitlines()


def test_six_headings_in_order() -> None:
    plan = plan_of()
    positions = [plan.index(h) for h in HEADINGS]
    assert positions == sorted(positions)
    assert len(re.findall(r"^## ", plan, re.M)) == 6


def test_rendering_is_byte_identical_and_dateless() -> None:
    text = "profile: 1\nname: again\n"
    first = render_plan(derive(load_profile_text(text)))
    second = render_plan(derive(load_profile_text(text)))
    assert first == second
    assert first.endswith("\n") and not first.endswith("\n\n")
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", first)


def test_header_shows_profile_and_derived_figures() -> None:
    plan = plan_of("volume: {steps_per_second: 300, events_per_step: 3}")
    head = plan[: plan.index(HEADINGS[0])]
    assert "profile `test`" in head and "PostgreSQL 16" in head
    assert "| events/day | 77,760,000 |" in head  # 300 * 3 * 86,400
    assert "| checkpoints/day (at most) | 25,920,000 |" in head


@pytest.mark.parametrize("tenancy", ["", "tenancy: {column: null}"])
def test_section3_lists_every_index_primary_key_and_partition(tenancy: str) -> None:
    model, plan = model_of(tenancy), plan_of(tenancy)
    indexes = section(plan, 3).split("### Partitioned tables")[0]
    for index in model.indexes:
        assert f"| {index.table} | `{index.name}`" in indexes, index.name
        assert index.why in indexes
    for table in model.tables:
        assert f"`{table.pk_name}` (PK)" in indexes
    partitions = section(plan, 3).split("### Partitioned tables")[1].split("### Storage")[0]
    partitioned = [t for t in model.tables if t.partitioning]
    assert partitioned
    for table in partitioned:
        assert table.partitioning is not None
        assert f"| {table.name} | `{table.partitioning.column}` |" in partitions
        assert table.partitioning.why in partitions


def test_mermaid_block_is_plausible_and_covers_the_model() -> None:
    model = model_of()
    lines = mermaid(plan_of())
    assert lines[0] == "erDiagram"
    relationships = [line for line in lines if RELATIONSHIP.match(line)]
    fks = [(fk.ref_table, t.name) for t in model.tables for fk in t.foreign_keys]
    found = [RELATIONSHIP.match(line).group(1, 5) for line in relationships]  # type: ignore[union-attr]
    assert sorted(found) == sorted(fks)
    for table in model.tables:
        assert f"    {table.name} {{" in lines
    body = [line for line in lines[1:] if line not in relationships]
    for line in body:
        assert re.match(r"^    \w+ \{$", line) or line == "    }" or ATTRIBUTE.match(line), line


def test_tenant_column_appears_in_erd_only_when_multi_tenant() -> None:
    single = "\n".join(mermaid(plan_of("tenancy: {column: null}")))
    multi = "\n".join(mermaid(plan_of()))
    assert "tenant_id" not in single and "tenants" not in single
    assert "uuid tenant_id PK, FK" in multi and "tenants ||--o{ runs" in multi
    assert "Single-tenant profile" in section(plan_of("tenancy: {column: null}"), 1)


STRATEGY_MARKERS = {
    LockStrategy.skip_locked: "FOR UPDATE SKIP LOCKED` row-locks",
    LockStrategy.lease: "It inserts the next attempt `ON CONFLICT DO NOTHING`",
    LockStrategy.optimistic: "Compare-and-set in the same statement",
    LockStrategy.advisory: "pg_try_advisory_xact_lock",
}


@pytest.mark.parametrize("strategy", list(LockStrategy))
def test_lock_strategy_changes_section2(strategy: LockStrategy) -> None:
    ours = section(plan_of(f"lock_strategy: {strategy.value}"), 2)
    claim = ours.split("### Claiming a run")[1].split("### Leases")[0]
    assert STRATEGY_MARKERS[strategy] in claim
    for other, marker in STRATEGY_MARKERS.items():
        if other is not strategy:
            assert marker not in claim
            assert ours != section(plan_of(f"lock_strategy: {other.value}"), 2)
    assert f"| `{strategy.value}` (this profile) |" in ours
    assert ours.count("(this profile)") == 1


def test_lease_duration_sets_heartbeat_cadence() -> None:
    text = section(plan_of("lease: {duration: 90s, max_attempts: 7}"), 2)
    assert "Lease: 90 seconds" in text and "Heartbeat every 30 seconds" in text
    assert "after 7 attempts (`lease.max_attempts`) the run is not claimed again" in text


def test_scheduler_changes_section4() -> None:
    cron = section(plan_of("retention: {scheduler: pg_cron}"), 4)
    external = section(plan_of(), 4)
    assert "SELECT cron.schedule('agent_partitions', '0 * * * *'" in cron
    assert "SELECT cron.schedule('agent_purge_outbox'" in cron
    assert "kind: CronJob" not in cron
    assert "```cron\n0 * * * * psql" in external and "kind: CronJob" in external
    assert "cron.schedule" not in external


def test_partition_manager_changes_section4() -> None:
    partman = section(plan_of("retention: {partition_manager: pg_partman}"), 4)
    builtin = section(plan_of(), 4)
    assert "CALL partman.run_maintenance_proc()" in partman
    assert "maintain_partitions()" not in partman
    assert "CALL agent.maintain_partitions()" in builtin


def test_retention_changes_windows_cadence_and_batches() -> None:
    quiet = "volume: {steps_per_second: 5}\nretention: {events: 180d, outbox_delivered: 12h}"
    long_events = section(plan_of(quiet), 4)
    assert "| events | 180d | whole month partition" in long_events
    assert "daily at 03:00" in long_events
    assert "delivered_at < now() - interval '12 hours'" in long_events
    busy = section(plan_of("volume: {steps_per_second: 2000}"), 4)
    assert "LIMIT 1000" in busy and "LIMIT 5000" not in busy  # tuning.batch_size


def test_detach_runbook_names_the_events_parent() -> None:
    text = section(plan_of(), 4)
    assert "SELECT statement FROM agent.partition_steps() \\gexec" in text
    assert "ALTER TABLE agent.events DETACH PARTITION agent.events_pYYYYMMDD FINALIZE;" in text
    partman = section(plan_of("retention: {partition_manager: pg_partman}"), 4)
    assert "ALTER TABLE agent.events DETACH PARTITION agent.events_pYYYYMMDD CONCURRENTLY;" in partman


@pytest.mark.parametrize(
    ("version", "present", "absent"),
    [
        (14, "instead of UNIQUE NULLS NOT DISTINCT", "uuidv7() time-ordered UUID defaults (PostgreSQL 18+)"),
        (18, "uuidv7() time-ordered UUID defaults (PostgreSQL 18+)", "instead of UNIQUE NULLS NOT DISTINCT"),
    ],
)
def test_engine_version_changes_feature_notes(version: int, present: str, absent: str) -> None:
    notes = section(plan_of(f"engine: {{version: {version}}}"), 1)
    assert f"### Version-gated features (PostgreSQL {version})" in notes
    assert present in notes and absent not in notes
    for feature in model_of(f"engine: {{version: {version}}}").features:
        assert f"- {feature}" in notes


def test_exactly_three_concrete_risk_scenarios() -> None:
    model = model_of("volume: {steps_per_second: 750}")
    risks = section(plan_of("volume: {steps_per_second: 750}"), 5)
    scenarios = re.split(r"^### 5\.\d ", risks, flags=re.M)[1:]
    assert len(scenarios) == 3
    for text in scenarios:
        for label in ("Trigger and symptom", "Impact", "Detection", "Mitigation", "Rollback"):
            assert f"- **{label}:**" in text
    assert "750 steps/s" in risks
    assert "DROP SCHEMA agent CASCADE" in risks
    health = {p.name for p in model.access_paths if p.kind == "health"}
    named = set(re.findall(r"`(health_\w+)`", plan_of("volume: {steps_per_second: 750}")))
    assert named and named <= health


@pytest.mark.parametrize("body", ["", "retention: {scheduler: pg_cron}", "tenancy: {column: null}"])
def test_every_sql_block_parses(body: str) -> None:
    blocks = re.findall(r"```sql\n(.*?)\n```", plan_of(body), re.S)
    assert len(blocks) >= 2
    for sql in blocks:
        assert pglast.parse_sql(sql)


def test_markdown_tables_have_consistent_columns() -> None:
    plan = plan_of("tenancy: {column: null}\nengine: {version: 14}")
    tables = re.findall(r"(?:^\| .*\n)+", plan, re.M)
    assert len(tables) >= 6
    for table in tables:
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in table.splitlines()}
        assert len(widths) == 1, table.splitlines()[0]


def test_example_profiles_render_distinct_plans() -> None:
    files = [ROOT / "schemas" / "default.yaml", *sorted((ROOT / "schemas" / "examples").glob("*.yaml"))]
    plans = {path.name: render_plan(derive(load_profile(path))) for path in files if path.exists()}
    assert plans, "no profiles found in schemas/"
    assert len(set(plans.values())) == len(plans)
    for name, plan in plans.items():
        assert all(h in plan for h in HEADINGS), name
