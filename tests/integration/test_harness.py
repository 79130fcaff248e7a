"""The real-PostgreSQL harness against real servers: embedded, external, several at once."""

from __future__ import annotations

import os
import pwd
import secrets
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agentddl.checks.db import PostgresServer, embedded, find_installations, open_server
from agentddl.generator.errors import AgentDDLError

DEBIAN_15_BIN = Path("/usr/lib/postgresql/15/bin")


@pytest.fixture
def embedded_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests start their own servers even when the session runs on $AGENTDDL_DSN."""
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)


def database_exists(server: PostgresServer, name: str) -> bool:
    with psycopg.connect(server.admin_dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,))
        return row.fetchone() == (1,)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_server_reports_its_major(
    pg_server: PostgresServer, request: pytest.FixtureRequest
) -> None:
    with psycopg.connect(pg_server.admin_dsn) as conn:
        row = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
    assert row is not None
    assert pg_server.version == row[0] // 10000
    requested = request.node.callspec.params["pg_server"]
    assert requested in (None, pg_server.version)


def test_create_database_is_empty_and_drop_forces_out_sessions(pg_server: PostgresServer) -> None:
    name = f"agentddl_t_{secrets.token_hex(4)}"
    dsn = pg_server.create_database(name)
    lingering = psycopg.connect(dsn)
    user_relations = lingering.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"
    ).fetchone()
    assert (lingering.info.dbname, user_relations) == (name, (0,))
    pg_server.drop_database(name)
    lingering.close()
    assert not database_exists(pg_server, name)


@pytest.mark.parametrize("name", ["bad;name", 'a"b', "", "x" * 64, "1abc"])
def test_database_names_are_validated(pg_server_latest: PostgresServer, name: str) -> None:
    with pytest.raises(AgentDDLError, match="invalid database name"):
        pg_server_latest.create_database(name)


def test_refuses_to_drop_the_admin_database(pg_server_latest: PostgresServer) -> None:
    with pytest.raises(AgentDDLError, match="refusing"):
        pg_server_latest.drop_database(pg_server_latest.admin_dsn)
    assert database_exists(pg_server_latest, "postgres")


def test_scratch_database_is_dropped_when_the_body_raises(pg_server: PostgresServer) -> None:
    names = []
    with pytest.raises(RuntimeError), pg_server.scratch_database() as dsn:
        names.append(str(conninfo_to_dict(dsn)["dbname"]))
        with psycopg.connect(dsn) as conn:
            conn.execute("CREATE TABLE t (id int)")
        raise RuntimeError("body failed")
    assert names and not database_exists(pg_server, names[0])


def test_scratch_dsn_is_a_fresh_database(scratch_dsn: str, pg_server: PostgresServer) -> None:
    name = str(conninfo_to_dict(scratch_dsn)["dbname"])
    assert name.startswith("agentddl_") and database_exists(pg_server, name)
    with psycopg.connect(scratch_dsn) as conn:
        conn.execute("CREATE TABLE t (id int PRIMARY KEY)")
        conn.execute("INSERT INTO t VALUES (1)")


@pytest.mark.usefixtures("embedded_only")
def test_two_majors_run_at_once() -> None:
    majors = sorted(find_installations())
    assert len(majors) >= 2, f"need two installed majors, found {majors}"
    with (
        open_server(version=majors[0]) as old,
        open_server(version=majors[-1]) as new,
        psycopg.connect(old.admin_dsn) as a,
        psycopg.connect(new.admin_dsn) as b,
    ):
        versions = [c.execute("SHOW server_version_num").fetchone() for c in (a, b)]
    assert (old.version, new.version) == (majors[0], majors[-1])
    assert [int(v[0]) // 10000 for v in versions if v] == [majors[0], majors[-1]]


@pytest.mark.usefixtures("embedded_only")
def test_a_preferred_major_runs_when_installed_else_the_newest() -> None:
    majors = sorted(find_installations())
    assert len(majors) >= 2, f"need two installed majors, found {majors}"
    with open_server(prefer=majors[0]) as preferred, open_server(prefer=99) as fallback:
        assert (preferred.version, fallback.version) == (majors[0], majors[-1])
    with pytest.raises(AgentDDLError, match="PostgreSQL 99"), open_server(version=99, prefer=majors[0]):
        pass  # an exact version is never replaced by the preference


@pytest.mark.usefixtures("embedded_only")
def test_debian_15_has_the_checks_extensions() -> None:
    assert find_installations().get(15) == DEBIAN_15_BIN
    with open_server(version=15) as server:
        assert server.has_extension("hypopg")
        assert server.has_extension("pg_partman")
        assert not server.has_extension("agentddl_no_such_extension")


def test_external_dsn_is_used_and_never_stopped(pg_server_latest: PostgresServer) -> None:
    # $AGENTDDL_DSN is read by the CLI (--dsn's envvar), not by the library
    with open_server(pg_server_latest.admin_dsn) as external:
        assert external.admin_dsn == pg_server_latest.admin_dsn
        with external.scratch_database() as dsn:
            psycopg.connect(dsn).close()
        external.close()
    with open_server(dsn=pg_server_latest.admin_dsn) as explicit:
        assert explicit.version == pg_server_latest.version
    psycopg.connect(pg_server_latest.admin_dsn).close()


def scratch_settings(conn: psycopg.Connection[tuple[Any, ...]]) -> list[str]:
    names = ["listen_addresses", "max_connections", "fsync", "synchronous_commit"]
    return [str(conn.execute(f"SHOW {name}").fetchone()[0]) for name in names]  # type: ignore[index]


@pytest.mark.usefixtures("embedded_only")
def test_close_leaves_no_process_and_no_files() -> None:
    with (
        open_server(version=min(find_installations())) as server,
        psycopg.connect(server.admin_dsn) as conn,
    ):
        assert scratch_settings(conn) == ["127.0.0.1", "200", "off", "off"]
        data_dir = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        pids = [int(r[0]) for r in conn.execute("SELECT pid FROM pg_stat_activity")]
        pids.append(int((data_dir / "postmaster.pid").read_text().split()[0]))
        owner = data_dir.stat().st_uid
    assert owner == (pwd.getpwnam("agentddl-pg").pw_uid if os.geteuid() == 0 else os.getuid())
    assert len(pids) > 2
    assert [pid for pid in pids if alive(pid)] == []
    assert not data_dir.parent.exists()


@pytest.mark.usefixtures("embedded_only")
def test_startup_failure_shows_the_server_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embedded.SERVER_SETTINGS, "max_connections", "many")
    before = set(embedded.scratch_parent().glob("agentddl-pg*"))
    with pytest.raises(AgentDDLError, match=r"(?s)exited during startup.*max_connections"):
        open_server(version=max(find_installations())).__enter__()
    assert set(embedded.scratch_parent().glob("agentddl-pg*")) <= before


def test_key_value_dsns_work_like_uris(pg_server_latest: PostgresServer) -> None:
    server = PostgresServer(make_conninfo(pg_server_latest.admin_dsn, application_name="kv"))
    dsn = server.create_database()
    assert "://" not in dsn and conninfo_to_dict(dsn)["application_name"] == "kv"
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT current_setting('application_name')").fetchone() == ("kv",)
    server.drop_database(dsn)
    assert not database_exists(server, str(conninfo_to_dict(dsn)["dbname"]))


def test_unreachable_dsn_is_a_one_line_error() -> None:
    with pytest.raises(AgentDDLError, match=r"cannot connect to PostgreSQL at 127\.0\.0\.1:1/"):
        open_server(dsn="postgresql://postgres@127.0.0.1:1/postgres").__enter__()


@pytest.mark.usefixtures("embedded_only")
def test_missing_major_says_how_to_get_one() -> None:
    with pytest.raises(AgentDDLError, match="PostgreSQL 99"), open_server(version=99):
        pass


def test_explicit_bin_dir_wins_and_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = find_installations()
    (tmp_path / "bin").symlink_to(installed[15], target_is_directory=True)
    monkeypatch.setenv("AGENTDDL_PG_BIN_15", str(tmp_path / "bin"))
    assert find_installations()[15] == tmp_path / "bin"
    monkeypatch.setenv("AGENTDDL_PG_BIN_15", str(installed[max(installed)]))
    with pytest.raises(AgentDDLError, match="AGENTDDL_PG_BIN_15"):
        find_installations()
