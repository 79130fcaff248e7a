"""The pure parts of audit --dsn: a write's read part, what it fires, parameter contexts,
index definitions compared, suggestions kept to the table's columns, query files without
parameter lists, pg_stat_statements rows as paths, measured full-index scans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentddl.checks.audit.definitions import covered_by_existing, element, valid_parts
from agentddl.checks.audit.fromstats import _path as stats_path
from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import named, numbered, psycopg_style
from agentddl.checks.audit.plan import Catalog, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.checks.audit.rules.seq_scan_on_large_table import SeqScanOnLargeTable
from agentddl.checks.audit.sampling import Context, param_contexts
from agentddl.checks.audit.shape import index_shapes
from agentddl.checks.audit.suggest import suggest
from agentddl.checks.audit.writes import read_part, write_facts


@pytest.mark.parametrize(
    ("statement", "read"),
    [
        (
            "UPDATE jobs SET status = 'doing', worker_id = %(w)s WHERE id = (SELECT id FROM jobs"
            " WHERE status = 'todo' AND queue = %(q)s ORDER BY priority LIMIT 1 FOR UPDATE SKIP LOCKED)"
            " RETURNING id",
            "SELECT 1 FROM jobs WHERE id = (SELECT id FROM jobs WHERE status = 'todo' AND queue = %(q)s"
            " ORDER BY priority LIMIT 1)",
        ),
        (
            "DELETE FROM w USING j WHERE j.w = w.id AND j.k = %(k)s",
            "SELECT 1 FROM w, j WHERE j.w = w.id AND j.k = %(k)s",
        ),
        (
            "WITH gone AS (DELETE FROM t WHERE at < %(a)s RETURNING id)"
            " INSERT INTO archive SELECT id FROM gone",
            "WITH gone AS (SELECT id FROM t WHERE at < %(a)s) SELECT id FROM gone",
        ),
        (
            "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "SELECT 1 FROM s LEFT JOIN t ON t.id = s.id",
        ),
        (
            "SELECT * FROM t WHERE name LIKE 'a%%' AND x = %(x)s FOR SHARE",
            "SELECT * FROM t WHERE name LIKE 'a%%' AND x = %(x)s",
        ),
        ("INSERT INTO t (a) VALUES (%(a)s) ON CONFLICT (a) DO NOTHING", None),
        (
            "WITH x AS (INSERT INTO t (a) VALUES (1) RETURNING a) SELECT a FROM x",
            "WITH x AS (SELECT a FROM t WHERE FALSE) SELECT a FROM x",
        ),
    ],
)
def test_a_write_is_planned_as_its_read_part(statement: str, read: str | None) -> None:
    """Planning a write takes ROW EXCLUSIVE, a locking read ROW SHARE: in place the audit
    plans the SELECT that finds the same rows, parameters kept by name."""
    assert read_part(statement) == read
    assert write_facts(statement).writes


def test_what_a_write_fires() -> None:
    facts = write_facts("UPDATE p SET key = %(k)s, note = 'x' WHERE id = %(i)s")
    assert facts.updates == (("p", ("key", "note")),) and facts.deletes == ()
    facts = write_facts("WITH d AS (DELETE FROM a RETURNING id) DELETE FROM b WHERE id IN (SELECT id FROM d)")
    assert set(facts.deletes) == {"a", "b"}
    assert not write_facts("SELECT 1 FROM t").writes


def test_placeholders_round_trip_and_a_lone_percent() -> None:
    statement = "SELECT 1 FROM t WHERE a = %(a)s AND b LIKE 'x%%' AND c = %(a)s AND d = %(d)s"
    assert numbered(statement) == "SELECT 1 FROM t WHERE a = $1 AND b LIKE 'x%' AND c = $1 AND d = $2"
    assert named(numbered(statement), ("a", "d")) == statement
    assert (
        psycopg_style("SELECT 1 WHERE b LIKE 'x%' AND a = %(a)s")
        == "SELECT 1 WHERE b LIKE 'x%%' AND a = %(a)s"
    )


def _catalog(**more: Any) -> Catalog:
    base: dict[str, Any] = {
        "schema": "public",
        "rows": {"jobs": 500_000.0, "jobs_pkey": 500_000.0},
        "parent": {},
        "partitions": {},
        "partition_key": {},
        "index_table": {"jobs_pkey": "jobs"},
        "index_columns": {"jobs_pkey": ("id",)},
        "unique": frozenset({"jobs_pkey"}),
        "constraint_indexes": frozenset({"jobs_pkey"}),
        "columns": {"jobs": ("id", "queue", "status", "created_at", "metadata", "lock_key")},
        "types": {("jobs", "metadata"): "jsonb", ("jobs", "queue"): "text"},
        "index_defs": {"jobs_pkey": ("id",)},
        "predicates": {"jobs_pkey": ""},
    }
    return Catalog(**(base | more))


def test_parameters_know_the_column_they_are_compared_with() -> None:
    statement = (
        "SELECT 1 FROM jobs AS j WHERE j.queue = %(q)s AND %(since)s < created_at AND metadata @> %(f)s"
        " AND j.id = ANY(%(ids)s) AND lock_key LIKE %(p)s AND lower(j.queue) = lower(%(n)s) LIMIT %(lim)s"
    )
    found = param_contexts(statement, _catalog())
    assert found["q"] == Context("=", "jobs", "queue")
    assert found["since"] == Context(">", "jobs", "created_at")  # $1 < col is col > $1
    assert found["f"] == Context("contains", "jobs", "metadata")
    assert found["ids"] == Context("any", "jobs", "id")
    assert found["p"] == Context("like", "jobs", "lock_key")
    assert found["lim"] == Context("limit")
    assert "n" not in found  # inside lower(): no column to sample from


def test_index_elements_compare_as_postgres_prints_them() -> None:
    assert element("(metadata ->> 'k')") == element("metadata ->> 'k'::text")
    assert element("lower(name) text_pattern_ops") == ("lower(name)", "text_pattern_ops", False, False)
    assert element("created_at DESC") == ("created_at", "", True, True)


def test_a_suggestion_never_duplicates_or_prefixes_an_existing_index() -> None:
    catalog = _catalog(
        index_table={"jobs_pkey": "jobs", "jobs_q": "jobs"},
        index_columns={"jobs_pkey": ("id",), "jobs_q": ("queue", "created_at")},
        index_defs={"jobs_pkey": ("id",), "jobs_q": ("queue", "created_at DESC")},
        predicates={"jobs_pkey": "", "jobs_q": ""},
        methods={"jobs_pkey": "btree", "jobs_q": "btree"},
    )
    (prefix,) = index_shapes("SELECT 1 FROM jobs WHERE queue = %(q)s", "jobs")
    assert covered_by_existing(prefix, "jobs", catalog, "btree")
    (backwards,) = index_shapes("SELECT 1 FROM jobs WHERE queue = %(q)s ORDER BY created_at", "jobs")
    assert covered_by_existing(backwards, "jobs", catalog, "btree")  # a B-tree is read either way
    (partial,) = index_shapes("SELECT 1 FROM jobs WHERE queue = %(q)s AND status = 'todo'", "jobs")
    assert covered_by_existing(partial, "jobs", catalog, "btree")  # a partial copy would only be smaller
    (wider,) = index_shapes("SELECT 1 FROM jobs WHERE queue = %(q)s AND lock_key = %(k)s", "jobs")
    assert not covered_by_existing(wider, "jobs", catalog, "btree")


def test_a_subquery_output_is_never_an_index_key() -> None:
    """`latest_at` is the subquery's max(created_at): neither level of the query gets it
    as a key (the outer level reads no table; the catalog check drops it anyway)."""
    statement = (
        "SELECT l.thread_id FROM (SELECT thread_id, max(created_at) AS latest_at FROM jobs"
        " GROUP BY thread_id) AS l ORDER BY latest_at DESC LIMIT 20"
    )
    assert index_shapes(statement, "jobs") == []
    (joined,) = index_shapes(
        "SELECT c.id FROM jobs AS c JOIN (SELECT queue, max(created_at) AS latest_at FROM jobs"
        " GROUP BY queue) AS l ON l.queue = c.queue WHERE c.status = 'todo' ORDER BY latest_at",
        "jobs",
    )[:1]
    kept = valid_parts(joined, "jobs", _catalog())
    assert kept is not None and [p.target for p in kept.parts] == ["queue"]


def test_containment_is_suggested_as_gin_jsonb_path_ops() -> None:
    statement = "SELECT id FROM public.jobs WHERE metadata @> %(f)s ORDER BY created_at DESC LIMIT 10"
    seq = {"Plan": {"Node Type": "Seq Scan", "Relation Name": "jobs", "Plan Rows": 20, "Total Cost": 9000.0}}
    catalog = _catalog()
    path = AuditPath("search", statement, ("f",), "jobs", None, "user", "q.sql:1")
    failing = (SeqScanOnLargeTable.finding("search reads public.jobs", "", object="search"),)
    result = PathResult(path, summarize(seq, catalog, 16), failing)
    planner = Planner(None, 16, Thresholds(), {}, "public")
    found = suggest(None, planner, result, catalog, hypopg=False)  # type: ignore[arg-type]
    assert found is not None
    assert found.ddl == "CREATE INDEX CONCURRENTLY ON public.jobs USING gin (metadata jsonb_path_ops)"


def test_a_block_without_a_parameter_list_is_a_path(tmp_path: Path) -> None:
    path = tmp_path / "q.sql"
    path.write_text(
        "-- name: fetch_job\nUPDATE jobs SET status = 'doing' WHERE id = (SELECT id FROM jobs"
        " WHERE queue = :queue LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;\n"
        "-- name: stats$\nSELECT count(*) FROM jobs;\n"
    )
    fetch, stats = load_query_file(path)
    assert fetch.params == ("queue",) and fetch.writes and fetch.updates == (("jobs", ("status",)),)
    assert fetch.example_exprs == {} and stats.params == () and not stats.writes


def test_a_pg_stat_statements_row_is_a_path_with_its_counters() -> None:
    row = (42, "SELECT id FROM jobs WHERE lock_key = $1 AND status = $2", 12, 1200.0, 100.0, 24)
    path = stats_path(row, _catalog())
    assert path is not None and path.name == "stats:42" and path.kind == "stats"
    assert path.sql == "SELECT id FROM jobs WHERE lock_key = %(p1)s AND status = %(p2)s"
    assert path.params == ("p1", "p2") and path.stats is not None and path.stats.calls == 12
    assert stats_path((1, "SELECT 1 FROM pg_class WHERE oid = $1", 1, 1.0, 1.0, 1), _catalog()) is None
    assert stats_path((2, "VACUUM jobs", 1, 1.0, 1.0, 0), _catalog()) is None


def _leading_free(buffers: int | None, pages: float) -> dict[str, Any]:
    node: dict[str, Any] = {
        "Node Type": "Index Scan",
        "Relation Name": "jobs",
        "Index Name": "jobs_q",
        "Index Cond": "(created_at > now())",
        "Plan Rows": 1,
        "Total Cost": 50.0,
        "Actual Loops": 1,
        "Actual Rows": 1,
        "Actual Total Time": 0.015,
    }
    if buffers is not None:
        node["Shared Hit Blocks"] = buffers
    return {"Plan": node, "Execution Time": 0.02}


@pytest.mark.parametrize(("buffers", "codes"), [(4, set()), (400, {"ADA109"}), (None, {"ADA109"})])
def test_a_full_index_scan_is_judged_by_what_it_read(buffers: int | None, codes: set[str]) -> None:
    """Its leading column free, the node reads like a whole-index scan; 4 buffers of a
    1,000-page index (a LIMIT met at once: 0.015 ms) is no finding, 400 is."""
    catalog = _catalog(
        rows={"jobs": 500_000.0, "jobs_q": 500_000.0},
        index_table={"jobs_q": "jobs"},
        index_columns={"jobs_q": ("queue", "created_at")},
        pages={"jobs_q": 1000.0},
    )
    plan = summarize(_leading_free(buffers, 1000.0), catalog, 16)
    path = AuditPath("peek", "SELECT 1", (), "jobs", None, "user", "q.sql:1")
    assert {f.code for f in judge(path, plan, catalog, Thresholds())} == codes
