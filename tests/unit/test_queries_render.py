"""queries.sql: one parseable, schema-qualified, tenant-correct query per access path."""

from __future__ import annotations

import re
from typing import Any

import aiosql
import pglast
import pytest
from pglast import ast
from pglast.visitors import Visitor
from profiles import example_profiles, with_strategy, with_version

from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.model.scope import (
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    TRANSITIONS,
    WORKER_TRANSITIONS,
)
from agentddl.generator.profile import LockStrategy, Profile
from agentddl.generator.render.queries import build_queries, render_queries

EXAMPLES = example_profiles()
DEFAULT = EXAMPLES["default"]


def variants() -> dict[str, Profile]:
    """Every example profile, plus the default under every lock strategy and engine."""
    found = dict(EXAMPLES)
    for strategy in LockStrategy:
        found[f"default-{strategy.value}"] = with_strategy(DEFAULT, strategy)
        found[f"rls-{strategy.value}"] = with_strategy(EXAMPLES["newest-engine"], strategy)
        found[f"single-{strategy.value}"] = with_strategy(EXAMPLES["single-tenant"], strategy)
    for version in (14, 15, 18):
        found[f"default-pg{version}"] = with_version(DEFAULT, version)
    return found


VARIANTS = variants()
# Worker, relay and operator paths that run across tenants.
BATCH_PATHS = {"complete_attempts"}
GLOBAL_PATHS = {
    "claim_run",
    "claim_runs",
    "expire_leases",
    "relay_claim",
    "dead_letters",
    "purge_finished_runs",
    "purge_outbox",
    "maintain_partitions",
    "health_stuck_runs",
    "health_expired_leases",
    "health_outbox_lag",
    "health_dead_letters",
    "health_partition_runway",
}
# Outside strings: :name is a parameter, ::type a cast.
PARAM = re.compile(r"'(?:''|[^'])*'|(?<![:\w]):(\w+)")


def model_of(name: str) -> SchemaModel:
    return derive(VARIANTS[name])


def params_in(sql: str) -> set[str]:
    return {m.group(1) for m in PARAM.finditer(sql) if m.group(1)}


def as_postgres(sql: str) -> str:
    """:name -> $n, so PostgreSQL's own parser (pglast) can read the statement."""
    numbers: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        if not match.group(1):
            return match.group(0)
        return f"${numbers.setdefault(match.group(1), len(numbers) + 1)}"

    return PARAM.sub(number, sql)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_one_query_per_access_path(name: str) -> None:
    model = model_of(name)
    loaded = aiosql.from_str(render_queries(model), "psycopg")
    # aiosql adds a <name>_cursor twin for each row-returning query.
    names = [n for n in loaded.available_queries if not n.endswith("_cursor")]
    assert sorted(names) == sorted(p.name for p in model.access_paths)
    assert [q.name for q in build_queries(model)] == [p.name for p in model.access_paths]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_query_is_one_statement_postgres_parses(name: str) -> None:
    for query in build_queries(model_of(name)):
        statements = pglast.parse_sql(as_postgres(query.sql))
        assert len(statements) == 1, query.name


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_rendering_is_byte_identical(name: str) -> None:
    assert render_queries(model_of(name)) == render_queries(derive(VARIANTS[name]))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_declared_params_are_the_params_used(name: str) -> None:
    for query in build_queries(model_of(name)):
        assert set(query.param_names) == params_in(query.sql), query.name
        assert len(set(query.param_names)) == len(query.param_names), query.name


class Tables(Visitor):  # type: ignore[misc]
    def __init__(self) -> None:
        self.relations: list[tuple[str | None, str]] = []
        self.ctes: set[str] = set()

    def visit_RangeVar(self, ancestors: Any, node: ast.RangeVar) -> None:
        if ancestors.find_nearest(ast.LockingClause) is not None:
            return  # FOR ... OF names a FROM item's alias, not a table
        self.relations.append((node.schemaname, node.relname))

    def visit_CommonTableExpr(self, _ancestors: object, node: ast.CommonTableExpr) -> None:
        self.ctes.add(node.ctename)


@pytest.mark.parametrize("name", ["default", "single-tenant", "partman", "rls-lease"])
def test_every_table_is_schema_qualified(name: str) -> None:
    model = model_of(name)
    tables = {t.name for t in model.tables}
    for query in build_queries(model):
        visitor = Tables()
        visitor(pglast.parse_sql(as_postgres(query.sql)))
        for schema, relation in visitor.relations:
            if relation in visitor.ctes and schema is None:
                continue
            assert schema in (model.schema, "pg_catalog"), (query.name, relation)
            if schema == model.schema:
                assert relation in tables, (query.name, relation)


@pytest.mark.parametrize("name", ["default", "old-engine", "default-lease", "default-advisory"])
def test_tenant_owned_paths_take_the_tenant_and_global_ones_do_not(name: str) -> None:
    for query in build_queries(model_of(name)):
        if query.name in GLOBAL_PATHS:
            assert "tenant_id" not in query.param_names, query.name
        elif query.name in BATCH_PATHS and query.param_names[0] == "tenant_ids":  # one per element
            assert "b.tenant_id" in query.sql, query.name
        else:
            assert query.param_names[0] == "tenant_id", query.name
            assert ".tenant_id = :tenant_id" in query.sql or ":tenant_id," in query.sql, query.name


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_single_tenant_queries_have_no_tenant(strategy: LockStrategy) -> None:
    model = model_of(f"single-{strategy.value}")
    assert model.schema == "workflow"
    for query in build_queries(model):
        assert "tenant" not in query.sql, query.name
        assert "workflow." in query.sql or query.name == "health_partition_runway", query.name


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_claim_is_tenant_scoped_only_with_row_level_security(strategy: LockStrategy) -> None:
    scoped = next(q for q in build_queries(model_of(f"rls-{strategy.value}")) if q.name == "claim_run")
    shared = next(q for q in build_queries(model_of(f"default-{strategy.value}")) if q.name == "claim_run")
    assert scoped.param_names[0] == "tenant_id"
    assert "q.tenant_id = :tenant_id" in scoped.sql
    assert "tenant_id" not in shared.param_names


CLAIM_MARKERS = {
    LockStrategy.skip_locked: ("FOR UPDATE SKIP LOCKED",),
    LockStrategy.lease: ("ON CONFLICT DO NOTHING",),
    LockStrategy.advisory: ("AS MATERIALIZED", "pg_try_advisory_xact_lock(hashtextextended("),
}


def claims() -> dict[LockStrategy, str]:
    return {
        s: next(q.sql for q in build_queries(model_of(f"default-{s.value}")) if q.name == "claim_run")
        for s in LockStrategy
    }


@pytest.mark.parametrize("strategy", list(CLAIM_MARKERS), ids=lambda s: s.value)
def test_each_lock_strategy_has_its_own_claim(strategy: LockStrategy) -> None:
    sql = claims()
    for marker in CLAIM_MARKERS[strategy]:
        assert marker in sql[strategy]
        for other in set(LockStrategy) - {strategy}:
            assert marker not in sql[other], (marker, other)


def test_optimistic_claim_is_a_compare_and_set_without_locks() -> None:
    sql = claims()[LockStrategy.optimistic]
    assert "q.fencing_token = k.fencing_token" in sql
    assert "FOR UPDATE" not in sql and "advisory" not in sql


def test_start_run_conflict_target_spells_the_version_specific_index() -> None:
    old = next(q.sql for q in build_queries(model_of("default-pg14")) if q.name == "start_run")
    new = next(q.sql for q in build_queries(model_of("default-pg15")) if q.name == "start_run")
    nil = "'00000000-0000-0000-0000-000000000000'::uuid"
    assert f"ON CONFLICT (tenant_id, (coalesce(parent_run_id, {nil})), run_key)" in old
    assert "ON CONFLICT (tenant_id, parent_run_id, run_key) WHERE run_key IS NOT NULL" in new


@pytest.mark.parametrize("name", ["default", "single-tenant", "old-engine"])
def test_docs_name_the_index_of_the_access_path(name: str) -> None:
    model = model_of(name)
    queries = {q.name: q for q in build_queries(model)}
    for path in model.access_paths:
        index_lines = [line for line in queries[path.name].doc if line.startswith("index:")]
        assert len(index_lines) == 1, path.name
        assert (path.index or "none") in index_lines[0], path.name


def test_partition_maintenance_follows_the_partition_manager() -> None:
    builtin = next(q.sql for q in build_queries(model_of("default")) if q.name == "maintain_partitions")
    partman = next(q.sql for q in build_queries(model_of("partman")) if q.name == "maintain_partitions")
    assert "agent.maintain_partitions()" in builtin
    assert "partman.run_maintenance(p_parent_table := t.parent_table)" in partman
    assert "('agent.checkpoints'), ('agent.events')" in partman


def test_retention_windows_come_from_the_profile() -> None:
    queries = {q.name: q.sql for q in build_queries(model_of("high-volume"))}
    assert f"interval '{90 * 86400} seconds'" in queries["purge_finished_runs"]
    assert f"interval '{86400} seconds'" in queries["purge_outbox"]
    assert "('events', 7)" in queries["health_partition_runway"]


def test_transition_table_keeps_terminal_runs_terminal() -> None:
    for source, target in (*TRANSITIONS, *WORKER_TRANSITIONS):
        assert {source, target} <= set(RUN_STATUSES)
        assert source not in TERMINAL_RUN_STATUSES
    assert all(target != "running" for _, target in TRANSITIONS)  # only claim_run starts a run
