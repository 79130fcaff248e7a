"""verify --citus: every example profile with distribution: citus generates (or is refused
at the key Citus cannot do) and passes the static Citus checks; hand-made violations each
give a located finding; citus.sql parses and names only tables and columns of schema.sql."""

from __future__ import annotations

import json
from pathlib import Path

import pglast
import pytest
from pglast import ast
from profiles import PROFILE_FILES

from agentddl.checks.citus import CitusRequest, Source, run
from agentddl.checks.cli.main import main
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.errors import ProfileError
from agentddl.generator.profile import Profile, load_profile_text

# examples Citus cannot take, and the key the refusal names
REFUSED = {
    "single-tenant": "distribution.engine: citus distributes every table by the tenant column",
    "partman": "retention.partition_manager: with distribution.engine citus",
    "newest-engine": "tenancy.row_level_security: the policies read",
}


def with_citus(path: Path) -> str:
    return path.read_text() + "distribution: {engine: citus}\n"


@pytest.mark.parametrize("path", PROFILE_FILES, ids=lambda p: p.stem)
def test_every_example_generates_with_citus_or_is_refused_at_its_key(path: Path) -> None:
    if path.stem in REFUSED:
        with pytest.raises(ProfileError, match=REFUSED[path.stem]):
            load_profile_text(with_citus(path), str(path))
        return
    profile = load_profile_text(with_citus(path), str(path))
    files = render_artifacts(profile)
    assert "citus.sql" in files
    assert (
        "create_distributed_table('agent.runs', 'tenant_id', colocate_with => 'none')" in files["citus.sql"]
    )
    assert "op.execute" in files["versions/0001_agentddl_schema.py"].split("scale-out: citus.sql")[1]
    findings = run(CitusRequest.from_profile(profile)).findings
    assert [f for f in findings if f.severity == "error"] == []
    # the operator's reports read every shard: flagged, as warnings
    assert {f.message.split(":")[0] for f in findings} == {
        "dead_letters",
        "health_stuck_runs",
        "health_expired_leases",
        "health_outbox_lag",
        "health_dead_letters",
    }


def citus_profile() -> Profile:
    return load_profile_text("profile: 1\nname: scaled\ndistribution: {engine: citus}\n", "p.yaml")


def test_citus_sql_parses_and_names_only_the_schema_s_tables_and_columns() -> None:
    files = render_artifacts(citus_profile())
    tables = {
        f"{s.stmt.relation.schemaname}.{s.stmt.relation.relname}": {
            c.colname for c in s.stmt.tableElts if isinstance(c, ast.ColumnDef)
        }
        for s in pglast.parse_sql(files["schema.sql"])
        if isinstance(s.stmt, ast.CreateStmt)
    }
    calls = [
        s.stmt.targetList[0].val
        for s in pglast.parse_sql(files["citus.sql"])
        if isinstance(s.stmt, ast.SelectStmt)
    ]
    named = 0
    for call in calls:
        args = [a.val.sval for a in call.args if isinstance(a, ast.A_Const)]
        assert args[0] in tables, args
        if call.funcname[-1].sval == "create_distributed_table":
            assert args[1] in tables[args[0]]
            named += 1
    assert named == len(tables) - 1  # every table but tenants (a reference table)
    procedure = files["citus.sql"].split("CREATE PROCEDURE")[1]
    assert "create_time_partitions('agent.events'" in procedure
    assert "drop_old_time_partitions('agent.checkpoints'" in procedure


def request_with(
    schema: str = "", citus: tuple[str, str] = ("", ""), queries: str | None = None
) -> CitusRequest:
    files = render_artifacts(citus_profile())
    citus_sql = files["citus.sql"].replace(*citus) if citus[0] else files["citus.sql"]
    return CitusRequest(
        Source("schema.sql", files["schema.sql"] + schema),
        Source("citus.sql", citus_sql),
        (Source("queries.sql", queries if queries is not None else files["queries.sql"]),),
    )


def test_a_unique_index_without_the_tenant_is_found_at_its_line() -> None:
    extra = "\nCREATE UNIQUE INDEX operations_key_only ON agent.operations (idempotency_key);\n"
    request = request_with(schema=extra)
    line = (
        request.schema_sql.text.count(
            "\n", 0, request.schema_sql.text.index("CREATE UNIQUE INDEX operations_key_only")
        )
        + 1
    )
    found = [f for f in run(request).findings if f.code == "ADS101"]
    assert [(f.file, f.line, f.column, f.object) for f in found] == [
        ("schema.sql", line, 1, "agent.operations.operations_key_only")
    ]
    assert "leaves out tenant_id" in found[0].message


def test_a_foreign_key_between_tables_not_co_located_is_found() -> None:
    moved = (
        "'agent.attempts', 'tenant_id', colocate_with => 'agent.runs'",
        "'agent.attempts', 'tenant_id', colocate_with => 'none'",
    )
    request = request_with(citus=moved)
    found = [f for f in run(request).findings if f.code == "ADS102"]
    # the attempts' own key to runs, and every key to the attempts (attempt notes)
    objects = sorted(f.object or "" for f in found)
    assert objects == ["agent.attempt_notes.attempt_notes_attempt_fkey", "agent.attempts.attempts_run_fkey"]
    assert all(f.file == "schema.sql" and f.line and "not co-located" in f.message for f in found)


def test_a_reference_table_pointing_at_a_distributed_one_is_found() -> None:
    extra = (
        "\nALTER TABLE agent.tenants ADD CONSTRAINT tenants_first_run_fkey FOREIGN KEY (tenant_id, name)"
        " REFERENCES agent.runs (tenant_id, run_key);\n"
    )
    found = [f for f in run(request_with(schema=extra)).findings if f.code == "ADS103"]
    assert [f.object for f in found] == ["agent.tenants.tenants_first_run_fkey"]


def test_the_cross_tenant_claim_is_a_multi_shard_error_at_its_line() -> None:
    """The single-server rendering's claim (FOR UPDATE SKIP LOCKED across tenants)."""
    single = render_artifacts(load_profile_text("profile: 1\nname: one\n", "p.yaml"))["queries.sql"]
    request = request_with(queries=single)
    found = [f for f in run(request).findings if f.code == "ADS104" and f.message.startswith("claim_run:")]
    text = request.queries[0].text
    at = text.index("agent.run_queue AS q", text.index("-- name: claim_run"))  # the live set's scan
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert found and all(f.severity == "error" for f in found)
    assert (found[0].file, found[0].line, found[0].column, found[0].object) == (
        "queries.sql",
        line,
        column,
        "agent.run_queue",
    )
    # and its CASE ... now() updates are refused by Citus
    assert any(f.code == "ADS105" and f.message.startswith("fail_delivery:") for f in run(request).findings)


def test_a_user_query_file_is_checked_with_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "scaled.yaml"
    profile.write_text("profile: 1\nname: scaled\ndistribution: {engine: citus}\n")
    ours = tmp_path / "ours.sql"
    ours.write_text(
        "-- name: runs_of_kind(tenant_id, kind)\n"
        "SELECT r.run_id FROM agent.runs AS r WHERE r.tenant_id = :tenant_id AND r.kind = :kind;\n\n"
        "-- name: lock_any(kind)\n"
        "SELECT r.run_id\n  FROM agent.runs AS r WHERE r.kind = :kind FOR UPDATE;\n"
    )
    code = main(["verify", "--citus", "-p", str(profile), "--queries", str(ours), "-f", "github"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"file={ours},line=6,col=8" in out and "ADS104" in out and "lock_any" in out
    assert "runs_of_kind" not in out


def test_citus_without_a_profile_or_folder_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--citus"]) == 2
    assert capsys.readouterr().err.startswith("agentddl: --citus needs --profile")


def test_plan_has_a_scale_out_section_that_states_the_limits_of_the_proof() -> None:
    plan = render_artifacts(citus_profile())["PLAN.md"]
    section = plan.split("## 6. Scale-out (Citus)")[1]
    assert "**32**" in section and "citus_rebalance_start()" in section
    assert "isolate_tenant_to_new_shard" in section and "**The coordinator.**" in section
    assert "No Citus server ran here" in section and "Not proven:" in section
    single = render_artifacts(load_profile_text("profile: 1\nname: one\n", "p.yaml"))["PLAN.md"]
    assert "Scale-out" not in single


def test_now_in_case_of_an_upsert_is_found() -> None:
    ours = Source(
        "ours.sql",
        "-- name: touch(tenant_id, key)\n"
        "INSERT INTO agent.operations AS o (tenant_id, idempotency_key) VALUES (:tenant_id, :key)\n"
        "ON CONFLICT (tenant_id, idempotency_key) DO UPDATE\n"
        "SET completed_at = CASE WHEN o.status = 'pending' THEN now() END;\n",
    )
    found = [
        f for f in run(CitusRequest.from_profile(citus_profile(), (ours,))).findings if f.file == "ours.sql"
    ]
    assert [(f.code, f.line, f.column) for f in found] == [("ADS105", 4, 56)]  # at now()


HALF_SCOPED = """-- name: half_scoped(tenant_id)
WITH picked AS (
    SELECT r.tenant_id, r.run_id FROM agent.runs AS r WHERE r.tenant_id = :tenant_id
    UNION ALL
    SELECT q.tenant_id, q.run_id FROM agent.runs AS q WHERE q.status = 'queued'
)
UPDATE agent.runs AS u SET version = u.version + 1
FROM picked AS p WHERE u.tenant_id = p.tenant_id AND u.run_id = p.run_id;

-- name: filtered_too_late(tenant_id)
WITH expired AS (
    UPDATE agent.attempts AS x SET status = 'expired' WHERE x.status = 'active' RETURNING x.tenant_id
)
SELECT count(*) FROM expired AS e WHERE e.tenant_id = :tenant_id;
"""


def test_a_tenant_reaches_only_what_it_filters_not_what_flows_beside_it() -> None:
    """One scoped arm of a UNION does not scope the other, nor what joins their output;
    a CTE filtered by its reader still ran on every shard."""
    ours = Source("ours.sql", HALF_SCOPED)
    found = [
        f for f in run(CitusRequest.from_profile(citus_profile(), (ours,))).findings if f.file == "ours.sql"
    ]
    assert [(f.message.split(":")[0], f.object, f.line) for f in found] == [
        ("half_scoped", "agent.runs", 5),
        ("half_scoped", "agent.runs", 7),
        ("filtered_too_late", "agent.attempts", 12),
    ]
    assert all(f.severity == "error" for f in found)


def test_a_generated_folder_is_checked_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "scaled.yaml"
    profile.write_text("profile: 1\nname: scaled\ndistribution: {engine: citus}\n")
    out = tmp_path / "out"
    assert main(["generate", str(profile), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", "--citus", "--generated", str(out), "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the cross-tenant operator reads: health_stuck_runs (run_queue, runs), health_expired_leases
    # (run_queue) and the outbox's three
    assert report["summary"]["error"] == 0 and report["summary"]["warning"] == 6
    assert {f["file"] for f in report["findings"]} == {str(out / "queries.sql")}
    (out / "citus.sql").unlink()
    assert main(["verify", "--citus", "--generated", str(out)]) == 2
    assert "expected schema.sql and citus.sql" in capsys.readouterr().err
