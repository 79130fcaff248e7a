"""`agentddl audit` on real PostgreSQL: the default schema at 1,000,000 events passes every
access path; dropping any declared index fails the paths it serves; users' queries with
an unindexed predicate get a finding and (PostgreSQL 15 + hypopg) a verified suggestion;
plans read on 15, 16 and 18 (skip scans on 18); baseline regression; the CLI."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import psycopg
import pytest
from profiles import ROOT, example_profiles, with_version

from agentddl.checks.audit import AuditOptions, AuditResult, audit_database, build_report
from agentddl.checks.audit.baseline import BASELINE_VERSION, baseline_document, compare
from agentddl.checks.audit.examples import read_samples
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.judge import Thresholds
from agentddl.checks.audit.planning import Planner, example_params
from agentddl.checks.audit.session import audit_paths
from agentddl.checks.audit.workload import drop_impact
from agentddl.checks.cli.main import main
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed import seed_model
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import Profile, load_profile_text

HERE = Path(__file__).parent
USER_QUERIES = HERE / "user_queries.sql"
DEFAULT = example_profiles()["default"]
ROOT_PROFILE = HERE.parent.parent.parent / "schemas" / "default.yaml"


class Seeded:
    """One seeded database, audited once; tests share it (seeding is the slow part)."""

    def __init__(
        self, server: Any, events: int, files: tuple[Path, ...] = (), profile: Profile = DEFAULT
    ) -> None:
        self.server = server
        self.model: SchemaModel = derive(with_version(profile, server.version))
        self.dsn = server.create_database()
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            install_schema(conn, self.model)
        self.stats = seed_model(self.dsn, self.model, events)
        self.paths = audit_paths(self.model, files)
        self.conn = psycopg.connect(self.dsn)
        hypopg = server.has_extension("hypopg")
        self.result: AuditResult = audit_database(
            self.conn, self.model, self.paths, AuditOptions(hypopg=hypopg)
        )

    def path(self, name: str) -> Any:
        return next(r for r in self.result.paths if r.path.name == name)

    def close(self) -> None:
        self.conn.close()
        self.server.drop_database(self.dsn)


def _seeded(pg_servers: Any, version: int, events: int, files: tuple[Path, ...] = ()) -> Iterator[Seeded]:
    seeded = Seeded(pg_servers.get(version), events, files)
    try:
        yield seeded
    finally:
        seeded.close()


@pytest.fixture(scope="module")
def at_volume(pg_servers: Any) -> Iterator[Seeded]:
    """The default profile on its engine (16) at 1,000,000 events."""
    yield from _seeded(pg_servers, DEFAULT.engine.version, 1_000_000)


@pytest.fixture(scope="module")
def on_15(pg_servers: Any) -> Iterator[Seeded]:
    yield from _seeded(pg_servers, 15, 200_000, (USER_QUERIES,))


@pytest.fixture(scope="module")
def on_18(pg_servers: Any) -> Iterator[Seeded]:
    yield from _seeded(pg_servers, 18, 200_000, (USER_QUERIES,))


def test_default_schema_at_a_million_events_passes_every_access_path(at_volume: Seeded) -> None:
    result = at_volume.result
    assert at_volume.stats.rows["events"] == 1_000_000
    assert result.passed, [f for f in result.findings if f.is_error]
    planned = [r for r in result.paths if r.plan is not None]
    assert {r.path.name for r in result.paths} >= {p.name for p in at_volume.model.access_paths}
    assert len(planned) >= len(at_volume.model.access_paths) - 2  # all but the catalog work
    claim = at_volume.path("claim_run")
    # one scan of the live set (a lapsed lease is a visible row like a due one); the big
    # tables only by key
    assert "run_queue" in {s.table for s in claim.plan.scans}
    assert not [s for s in claim.plan.scans if s.node == "Seq Scan" and s.table != "run_queue"], [
        (s.node, s.table, s.index) for s in claim.plan.scans
    ]
    assert claim.plan.actual_ms is not None  # EXPLAIN ANALYZE ran (and was rolled back)
    assert not [f for f in result.hygiene if f.severity != "info"], result.hygiene


def test_the_model_parts_read_paths_plan_on_their_declared_index(at_volume: Seeded) -> None:
    """Sessions, node executions, tool calls, approvals and attempt notes, seeded with the runs at
    1,000,000 events: each read path scans its declared index, never a whole table."""
    tables = {"node_executions", "tool_calls", "approvals", "attempt_notes"}
    reads = [
        p
        for p in at_volume.model.access_paths
        if p.kind == "read" and (p.table in tables or p.name == "session_runs")
    ]
    assert len(reads) == 7
    for path in reads:
        plan = at_volume.path(path.name).plan
        assert path.index in {s.index for s in plan.scans}, (path.name, plan.scans)
        assert not [s for s in plan.scans if s.node == "Seq Scan"], (path.name, plan.scans)
    assert at_volume.stats.rows["node_executions"] > 0 and at_volume.stats.rows["approvals"] > 0
    assert at_volume.stats.rows["attempt_notes"] > 0
    for name in ("record_step", "describe_operation"):  # model.details' fenced writers: by key
        written = at_volume.path(name)
        whole = [s for s in written.plan.scans if s.node == "Seq Scan" and s.table != "run_queue"]
        assert written.passed and not whole, name  # the live set is small: read whole, or by key


def test_a_single_tenant_week_of_events_passes_its_own_audit(pg_server_latest: Any) -> None:
    """Found by a new user: a single-tenant profile keeping events 7 days failed its own
    audit at 200,000 events (events_in_window sorted a window's ~2,000 events: its time
    index is BRIN at this volume, which finds the window but returns no order). At BRIN
    volume the export is unordered."""
    profile = load_profile_text("profile: 1\nname: st\ntenancy: {column: null}\nretention: {events: 7d}\n")
    seeded = Seeded(pg_server_latest, 200_000, profile=profile)
    try:
        assert seeded.result.passed, [f for f in seeded.result.findings if f.is_error]
        window = seeded.path("events_in_window")
        assert window.passed and "ORDER BY" not in window.path.sql
        # the time index finds the window (a partition it barely touches may be read whole)
        assert [s for s in window.plan.scans if s.index], window.plan.scans
    finally:
        seeded.close()


def test_audit_rolls_back_what_it_ran(at_volume: Seeded) -> None:
    """claim_run, expire_leases, purge_* really ran under ANALYZE; nothing stayed."""
    rows = at_volume.conn.execute("SELECT count(*) FROM agent.runs WHERE status = 'queued'").fetchone()
    assert rows is not None and rows[0] > 0
    claimed = at_volume.conn.execute("SELECT count(*) FROM agent.attempts WHERE worker_id = 'audit-worker'")
    assert claimed.fetchone() == (0,)


# Losses the plans alone can't show at this volume: the index is the FK target /
# uniqueness guard and the primary key plans the same lookups as cheaply, or outbox is
# small (500 rows at 1,000,000 events) and read whole. The audit still fails them (ADA105).
PLANS_EQUALLY_WITHOUT = {
    "runs_identity_key",
    "attempts_one_active_key",
    "outbox_pending_idx",
    "outbox_run_idx",
    "outbox_delivered_idx",
    "outbox_dead_idx",
    # the live set holds only the runs in flight (a few hundred at 1,000,000 events): read
    # whole, it costs about what the index costs; the index is for a backlog
    "run_queue_visible_idx",
}
PLAN_ERRORS = {"ADA101", "ADA102", "ADA103", "ADA106", "ADA107", "ADA108", "ADA109"}


def test_dropping_any_declared_index_fails_the_paths_it_serves(at_volume: Seeded) -> None:
    """Every declared index is dropped in turn (inside a rolled-back transaction) and
    every path re-planned: the paths declaring it fail, and the audit names them; for
    all but PLANS_EQUALLY_WITHOUT the plans themselves get worse (a plan error, or 3x cost)."""
    conn, model = at_volume.conn, at_volume.model
    catalog = read_catalog(conn, model.schema)
    planner = _planner(at_volume)
    before = {r.path.name: r for r in planner.plan_all(conn, at_volume.paths, analyze=False, catalog=catalog)}
    invisible = set()
    for index in model.indexes:
        declaring = {p.name for p in at_volume.paths if p.declared == index.name}
        assert declaring, f"{index.name} is declared for no path"
        impact = drop_impact(conn, planner, at_volume.paths, index.name, before, catalog)
        assert declaring <= set(impact.lost), (index.name, impact)
        for name in declaring:
            missing = {f.code for f in impact.after[name].findings if f.is_error}
            assert "ADA105" in missing or "ADA107" in missing, (index.name, name, missing)
        if not any(_worse(before[n], impact.after[n]) for n in declaring):
            invisible.add(index.name)
    assert invisible <= PLANS_EQUALLY_WITHOUT, invisible
    assert read_catalog(conn, model.schema).index_table == catalog.index_table  # all rolled back


def _worse(before: Any, after: Any) -> bool:
    if {f.code for f in after.findings} & PLAN_ERRORS:
        return True
    return bool(after.plan and before.plan and after.plan.cost >= 3 * before.plan.cost)


def _planner(seeded: Seeded) -> Any:
    params = example_params(seeded.conn, seeded.model, seeded.paths, read_samples(seeded.conn, seeded.model))
    return Planner(seeded.model, seeded.server.version, Thresholds(), params)


def test_user_queries_get_findings_and_a_suggestion_hypopg_proves(on_15: Seeded) -> None:
    assert on_15.server.has_extension("hypopg"), "make test installs postgresql-15-hypopg"
    result = on_15.result
    assert set(result.failed_paths) == {
        "run_by_trace",
        "recent_failures",
        "run_without_tenant",
        "events_of_kind_at_step",
        "failed_last_nulls_last",
        "run_by_trace_lower",
        "runs_by_trace_prefix",
        "tenant_events_since_yesterday",
        "run_by_trace_or_key",
    }
    assert "ADA103" in {f.code for f in on_15.path("tenant_events_since_yesterday").findings}
    # already served: the queue and append-log shapes, a write by key, a small table
    for served in ("tenant_run", "next_due", "last_event", "cancel_run", "tenant_by_name"):
        assert not [f for f in on_15.path(served).findings if f.severity != "info"], served
    assert "ADA101" in {f.code for f in on_15.path("run_by_trace").findings}
    suggestions = {s.path: s for s in result.suggestions}
    assert suggestions["recent_failures"].ddl == (
        "CREATE INDEX CONCURRENTLY ON agent.runs (kind, finished_at DESC) WHERE status = 'failed'"
    )
    assert suggestions["failed_last_nulls_last"].ddl == (
        "CREATE INDEX CONCURRENTLY ON agent.runs (kind, finished_at DESC NULLS LAST)"
    )
    assert (
        suggestions["run_by_trace_lower"].ddl == "CREATE INDEX CONCURRENTLY ON agent.runs ((lower(trace_id)))"
    )
    assert suggestions["runs_by_trace_prefix"].ddl == (
        "CREATE INDEX CONCURRENTLY ON agent.runs (trace_id text_pattern_ops)"
    )
    assert suggestions["run_by_trace_or_key"].ddl == (
        "CREATE INDEX CONCURRENTLY ON agent.runs (trace_id); "
        "CREATE INDEX CONCURRENTLY ON agent.runs (run_key)"
    )
    # events is partitioned: one hypothetical index per partition, the parent's DDL
    assert suggestions["events_of_kind_at_step"].ddl == "CREATE INDEX ON agent.events (kind, seq)"
    assert "tenant_events_since_yesterday" not in suggestions  # pruning: the query is the fix
    for s in suggestions.values():  # the planner takes it and the plan then passes
        assert s.verified is True and s.remaining is None, s
        assert s.cost_after is not None and s.cost_before is not None and s.cost_after < s.cost_before / 3


def test_a_users_write_is_rolled_back(on_15: Seeded) -> None:
    """cancel_run ran under EXPLAIN ANALYZE (its plan has an execution time); the run is
    still running."""
    cancel = on_15.path("cancel_run")
    assert cancel.plan.actual_ms is not None
    row = on_15.conn.execute(
        "SELECT status FROM agent.runs WHERE run_id = %s", [cancel.params["run_id"]]
    ).fetchone()
    assert row == ("running",)


def test_plans_on_18_pass_and_a_skip_scan_is_reported_as_one(on_18: Seeded) -> None:
    result = on_18.result
    generated = [r for r in result.paths if r.path.kind != "user"]
    assert all(r.passed for r in generated), [r.findings for r in generated if not r.passed]
    skip = on_18.path("run_without_tenant")
    # 18 reads runs' (tenant_id, run_id, ...) index as a skip scan: a warning, and the
    # plan node says what it really does; 15 can only read the whole table or index
    assert {f.code for f in skip.findings} == {"ADA106"}, skip.findings
    assert skip.plan.main_node("runs").endswith("(skip scan) on runs")
    assert "index searches" in skip.findings[0].message


def test_generic_plans_are_read_on_16_and_later(on_15: Seeded, on_18: Seeded) -> None:
    """A partial index a parameter decides serves the custom plan, not the generic one
    (EXPLAIN (GENERIC_PLAN) is new in 16; 15 can't show it)."""
    due = on_18.path("attempts_in_status")
    assert due.passed and "attempts_one_active_key" in {s.index for s in due.plan.scans}
    assert [f.code for f in due.findings] == ["ADA114"]
    assert on_15.path("attempts_in_status").findings == ()


def test_same_paths_on_15_plan_differently_than_on_18(on_15: Seeded, on_18: Seeded) -> None:
    on15 = {f.code for f in on_15.path("run_without_tenant").findings}
    assert on15 & {"ADA101", "ADA109"} and "ADA106" not in on15  # no skip scans before 18


def test_baseline_fails_a_path_that_lost_its_index(on_18: Seeded) -> None:
    baseline = baseline_document(on_18.result)
    assert baseline["paths"]["events_since"]["indexes"]
    conn = on_18.conn
    with conn.transaction(force_rollback=True):
        conn.execute("DROP INDEX agent.events_since_idx")
        after = audit_database(conn, on_18.model, on_18.paths, AuditOptions(analyze=False, workload=False))
    regressions = compare(after, baseline)
    assert {(f.code, f.object) for f in regressions} >= {("ADA120", "events_since")}
    assert not compare(on_18.result, baseline)  # the same plans: no regression


def test_cli_json_and_markdown_and_exit_codes(pg_servers: Any, tmp_path: Path, capsys: Any) -> None:
    """Two small runs: the first writes the baseline (exit 0), the second compares with it
    (no regression from a new seed) and fails (exit 1) on a query that can't be planned."""
    server = pg_servers.get(DEFAULT.engine.version)
    baseline = tmp_path / "baseline.json"
    args = ["audit", "--server", server.admin_dsn, "--rows", "5000", "--no-analyze"]
    args += ["--baseline", str(baseline)]
    assert main([*args, "--format", "json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    # progress reaches a stderr that is not a terminal, as plain lines
    assert "agentddl: seeding events: " in out.err and "agentddl: planning: " in out.err
    assert report["tool"] == "audit" and report["passed"] is True
    assert report["seed"]["rows"]["events"] == 5000
    assert {p["name"] for p in report["paths"]} >= {"claim_run", "events_since"}
    stored = json.loads(baseline.read_text())
    assert stored["baseline"] == 1 and stored["paths"]["claim_run"]["indexes"]
    assert stored["schema_version"] == BASELINE_VERSION  # and the published schema holds it:
    schema = json.loads((ROOT / "docs" / "schemas" / "audit-baseline.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(schema).validate(stored)
    wrong = tmp_path / "wrong.sql"
    wrong.write_text(
        "-- name: by_id(run_id)\n-- example: run_id = 'not-a-uuid'\n"
        "SELECT 1 FROM agent.runs AS r WHERE r.run_id = :run_id;\n"
    )
    assert main([*args, "--format", "markdown", "--queries", str(wrong)]) == 1
    out = capsys.readouterr()
    assert out.out.startswith("## agentddl audit") and "| `by_id` | **FAIL** |" in out.out
    assert "ADA107" in out.out and "ADA12" not in out.out  # no regression at this volume
    assert f"by_id ({wrong}:1) could not be planned" in out.out  # where to look in the file
    assert "1 access path(s) not served: by_id" in out.err


def test_markdown_of_failing_user_queries(on_15: Seeded) -> None:
    import io

    from agentddl.checks.core.report import render

    out = io.StringIO()
    render(build_report(on_15.result), "markdown", out)
    text = out.getvalue()
    assert "access path(s) not served: `run_by_trace`" in text and "| `run_by_trace` | **FAIL** |" in text
    assert "#### Suggested indexes" in text and "hypopg: the planner uses it" in text


ROWS_OF_RUNS_AND_EVENTS = "SELECT (SELECT count(*) FROM agent.runs), (SELECT count(*) FROM agent.events)"


def test_cli_dsn_audits_the_users_database_in_place_with_the_profiles_paths(
    pg_servers: Any, capsys: Any, tmp_path: Path
) -> None:
    """--dsn with --profile: the profile's paths planned on the user's own rows (no
    scratch copy, no seeding), read-only; the user's tables keep their rows."""
    server = pg_servers.get(15)
    profile = tmp_path / "p15.yaml"
    profile.write_text(ROOT_PROFILE.read_text().replace("engine: {version: 16}", "engine: {version: 15}"))
    users = server.create_database()
    try:
        model = derive(with_version(DEFAULT, 15))
        with psycopg.connect(users, autocommit=True) as conn:
            install_schema(conn, model)
        seed_model(users, model, 5000)
        with psycopg.connect(users) as conn:
            counts = conn.execute(ROWS_OF_RUNS_AND_EVENTS)
            before = counts.fetchone()
        args = ["audit", "--dsn", users, "--profile", str(profile), "--server", server.admin_dsn]
        code = main([*args, "--sample", "0", "--format", "json"])
        out = capsys.readouterr()
        assert code == 0, out.err
        report = json.loads(out.out)
        assert "seed" not in report and report["in_place"]["schema"] == "agent"
        claim = next(p for p in report["paths"] if p["name"] == "claim_run")
        assert claim["written"] is not None and "read part" in claim["method"]  # the UPDATE is not run
        with psycopg.connect(users) as conn:
            counts = conn.execute(ROWS_OF_RUNS_AND_EVENTS)
            assert counts.fetchone() == before
    finally:
        server.drop_database(users)


def test_cli_existing_is_a_deprecated_alias(pg_servers: Any, capsys: Any) -> None:
    """partman on Debian's 15: --existing (which copied the schema and re-seeded it) now
    says it is deprecated and audits the database in place: pg_partman's registration
    and the user's rows are only read."""
    server = pg_servers.get(15)
    users = server.create_database()
    try:
        model = derive(example_profiles()["partman"])
        with psycopg.connect(users, autocommit=True) as conn:
            install_schema(conn, model)
        seed_model(users, model, 3000)
        profile = ROOT_PROFILE.parent / "examples" / "partman.yaml"
        args = ["audit", "--dsn", users, "--existing", "--profile", str(profile), "--sample", "0"]
        assert main([*args, "--format", "json"]) == 0, capsys.readouterr().err
        out = capsys.readouterr()
        assert "agentddl: --existing is deprecated: --dsn audits that database in place" in out.err
        assert json.loads(out.out)["in_place"]["schema"] == "agent"
        with psycopg.connect(users) as conn:
            assert conn.execute("SELECT count(*) FROM agent.events").fetchone() == (3000,)
            assert conn.execute("SELECT count(*) FROM partman.part_config").fetchone() == (2,)
    finally:
        server.drop_database(users)


def test_cli_usage_errors_exit_2(capsys: Any, tmp_path: Path, monkeypatch: Any) -> None:
    bad = tmp_path / "q.sql"
    bad.write_text("-- name: q(tenant_id\nSELECT 1 FROM agent.runs WHERE tenant_id = :tenant_id;\n")
    assert main(["audit", "--queries", str(bad), "--rows", "10"]) == 2
    assert f"{bad}:1:10: expected '-- name: NAME' or '-- name: NAME(PARAM, ...)'" in capsys.readouterr().err
    # refused at load, before any server starts: COMMIT would end the rolled-back
    # transaction the audit runs each query in
    bad.write_text("-- name: q()\nSELECT 1 FROM agent.runs;\nCOMMIT;\nDROP TABLE agent.events;\n")
    assert main(["audit", "--queries", str(bad), "--server", "postgresql://nobody@127.0.0.1:1/x"]) == 2
    assert f"{bad}:3:1: query 'q': one statement per '-- name:' block" in capsys.readouterr().err
    # a corrupt baseline is reported before connecting (not after seeding)
    corrupt = tmp_path / "baseline.json"
    corrupt.write_text('{"baseline": 1,\n')
    assert main(["audit", "--baseline", str(corrupt), "--server", "postgresql://nobody@127.0.0.1:1/x"]) == 2
    assert f"{corrupt}:2:1: not a baseline" in capsys.readouterr().err
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    assert main(["audit", "--existing", "--rows", "10"]) == 2
    assert "--existing needs --dsn" in capsys.readouterr().err


def test_a_server_older_than_the_profile_is_one_line_exit_2(pg_servers: Any, capsys: Any) -> None:
    """The newest-engine profile (18) on 15 is refused by the server: one line naming
    both versions, no traceback."""
    server = pg_servers.get(15)
    profile = ROOT_PROFILE.parent / "examples" / "newest-engine.yaml"
    assert main(["audit", "--server", server.admin_dsn, "--profile", str(profile), "--rows", "10"]) == 2
    err = capsys.readouterr().err
    *progress, last = err.strip().splitlines()  # progress lines (stderr is no terminal), then the error
    assert last.startswith("agentddl: PostgreSQL 15 (the profile targets 18) refused the profile's schema: ")
    assert "Traceback" not in err and "refused" not in "".join(progress)


def test_an_example_the_server_rejects_is_reported_at_its_line(on_15: Seeded, tmp_path: Path) -> None:
    from agentddl.checks.audit.queryfile import load_query_file
    from agentddl.generator.errors import AgentDDLError

    bad = tmp_path / "q.sql"
    bad.write_text(
        "-- name: q(k)\n-- example: k = (SELECT no_such_column FROM agent.runs LIMIT 1)\nSELECT :k;\n"
    )
    paths = load_query_file(bad)
    with pytest.raises(AgentDDLError, match=rf"^{re.escape(str(bad))}:2:13: example k = .*no_such_column"):
        example_params(on_15.conn, on_15.model, paths, read_samples(on_15.conn, on_15.model))


def test_hygiene_flags_low_cardinality_json_unused_and_workload_redundant_indexes(on_15: Seeded) -> None:
    from agentddl.checks.verify import index_findings

    conn = on_15.conn
    # verify's catalog rules reach the audit by injection (the CLI passes the same function)
    options = AuditOptions(analyze=False, catalog_checks=(index_findings,))
    with conn.transaction(force_rollback=True):
        conn.execute("CREATE INDEX runs_status_idx ON agent.runs (status)")
        conn.execute("CREATE INDEX runs_input_idx ON agent.runs (input)")
        conn.execute("CREATE INDEX runs_input_gin ON agent.runs USING gin (input jsonb_path_ops)")
        twin = "(tenant_id, parent_run_id) WHERE parent_run_id IS NOT NULL"
        conn.execute(f"CREATE INDEX runs_parent_dup_idx ON agent.runs {twin}")
        conn.execute("ANALYZE agent.runs")
        result = audit_database(conn, on_15.model, on_15.paths, options)
    found = {(f.code, f.object) for f in result.hygiene}
    assert ("ADA112", "agent.runs_status_idx") in found  # six statuses
    assert ("ADA113", "agent.runs_input_idx") in found  # a whole jsonb document
    assert ("ADA113", "agent.runs_input_gin") not in found  # GIN: containment, what jsonb wants
    assert ("ADA111", "agent.runs_input_idx") in found, found  # no path reads it (status has no user)
    # the undeclared twin can go without any path noticing; the declared one is the
    # model's (dropping it is ADA105 for child_runs); verify's catalog rule sees both
    assert ("ADA110", "agent.runs_parent_dup_idx") in found
    assert ("ADA110", "agent.runs_parent_idx") not in found
    assert any(code == "ADV102" for code, _ in found), found
    assert not {f for f in found if f[0] == "ADA110" and f[1] == "agent.run_queue_visible_idx"}
