"""Where bench runs: in place in a user's database (refusing live work, leaving nothing
behind), on a durable embedded server, and from the command line; and the pinned
runtime session its clients use."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from profiles import ROOT, with_version
from psycopg.rows import dict_row

from agentddl.checks.bench import BenchOptions, BenchRequest, Clients, run
from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer, connect, find_installations, open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.runtime import Runtime
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile, load_default_profile

PROFILE = str(ROOT / "schemas" / "default.yaml")


def one(dsn: str, query: str, *params: Any) -> Any:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode(), params or None).fetchone()
    assert row is not None
    return row[0]


@pytest.fixture
def installed(pg_server_latest: PostgresServer) -> Iterator[str]:
    """The default profile (on the server's engine) installed in a scratch database."""
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, derive(profile_for(pg_server_latest)))
        yield dsn


def profile_for(server: PostgresServer) -> Profile:
    return with_version(load_default_profile(), server.version)


def test_in_place_refuses_live_work_then_leaves_nothing_behind(
    installed: str, pg_server_latest: PostgresServer, bench_clients: Clients
) -> None:
    profile = profile_for(pg_server_latest)
    tenant = "00000000-0000-0000-0000-00000000000a"
    with psycopg.connect(installed, autocommit=True) as conn:
        conn.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 'theirs')", [tenant])
        conn.execute("INSERT INTO agent.runs (tenant_id, kind) VALUES (%s, 'their.job')", [tenant])
    options = BenchOptions(clients=2, duration=0.2, paths=("heartbeat",))
    with pytest.raises(AgentDDLError, match=r"1 live runs in agent\.runs: bench's clients would claim"):
        run(BenchRequest(profile, options, dsn=installed), clients=bench_clients)
    with psycopg.connect(installed, autocommit=True) as conn:
        conn.execute("UPDATE agent.runs SET status = 'cancelled', finished_at = now(), version = version + 1")
    result = run(BenchRequest(profile, options, dsn=installed), clients=bench_clients)
    assert result.histories[0].history is None and result.histories[0].paths[0].figures.ops > 0
    assert one(installed, "SELECT count(*) FROM agent.runs WHERE kind = 'agentddl.bench'") == 0
    assert one(installed, "SELECT count(*) FROM agent.tenants WHERE name LIKE 'agentddl-bench %'") == 0
    assert one(installed, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'agentddl_bench_%'") == 0
    assert one(installed, "SELECT count(*) FROM agent.runs WHERE kind = 'their.job'") == 1  # theirs untouched


def test_a_durable_embedded_server_commits_as_production_does() -> None:
    version = min(find_installations())
    with open_server(version=version, durable=True) as server, connect(server.admin_dsn) as conn:
        shown = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in ("fsync", "full_page_writes")}  # type: ignore[index]
        shown["synchronous_commit"] = conn.execute("SHOW synchronous_commit").fetchone()[0]  # type: ignore[index]
        data = conn.execute("SHOW data_directory").fetchone()[0]  # type: ignore[index]
    assert shown == {"fsync": "on", "full_page_writes": "on", "synchronous_commit": "on"}
    assert not data.startswith("/dev/shm/")


def test_the_command_prints_json_and_exits_0(
    pg_server_latest: PostgresServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    argv = ["bench", "-p", PROFILE, "--server", pg_server_latest.admin_dsn, "--clients", "1"]
    code = main([*argv, "--duration", "0.2", "--history", "0", "--path", "sweep", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)
    assert report["tool"] == "bench" and report["clients"] == 1 and report["history"] == [0]
    assert [p["path"] for p in report["histories"][0]["paths"]] == ["sweep"]
    assert "agentddl: history 0: 1/3 floor: 1 commit (0.2 s)" in captured.err  # progress, as plain lines


def test_a_pinned_session_keeps_its_role_and_refuses_another_roles_query(
    installed: str, pg_server_latest: PostgresServer
) -> None:
    with connect(installed, autocommit=False, row_factory=dict_row) as conn:
        runtime = Runtime(derive(profile_for(pg_server_latest)), conn).pin("app")
        assert runtime.call("expire_leases", batch_size=10) == []
        assert conn.execute("SELECT current_user AS u").fetchone() == {"u": "agent_app"}
        conn.commit()
        with pytest.raises(ValueError, match="relay_claim runs as agent_relay, not as this session's"):
            runtime.call("relay_claim", relay_id="r", claim_seconds=1, batch_size=1)
