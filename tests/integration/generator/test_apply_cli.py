"""`agentddl apply` end to end on real PostgreSQL: both installs compared with the one
catalog snapshot, every format, and install failures as one line (exit 2)."""

from __future__ import annotations

import io
import json
from typing import Any

import psycopg
import pytest
from profiles import ROOT
from psycopg.conninfo import make_conninfo

from agentddl.checks.cli.main import main
from agentddl.checks.core.report import FORMATS, render
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.server import with_dbname
from agentddl.checks.verify import ApplyRequest, build_apply_report, run_apply

DEFAULT = ROOT / "schemas" / "default.yaml"
EXAMPLES = ROOT / "schemas" / "examples"


def apply(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(["apply", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def with_password(dsn: str) -> str:
    """The same server with a password in the DSN (trust auth ignores it): never printed."""
    return make_conninfo(dsn, password="s3cret-pw")


def test_the_default_profile_lands_identically_both_ways(
    capsys: Any, pg_server_latest: PostgresServer
) -> None:
    server = pg_server_latest.admin_dsn
    code, out, err = apply(capsys, "--profile", str(DEFAULT), "--server", server, "--format", "json")
    document = json.loads(out)
    assert (code, err) == (0, "")
    assert list(document) == [
        "tool", "schema_version", "profile", "schema", "server", "server_version", "kept", "tables",
        "findings", "summary",
    ]
    assert document["tool"] == "apply" and document["kept"] is None and document["findings"] == []
    events = next(row for row in document["tables"] if row["table"] == "events")
    assert events["partitions"] > 0 and events["indexes"] == 2


def test_every_format_renders_the_report(pg_server_latest: PostgresServer) -> None:
    report = build_apply_report(run_apply(ApplyRequest(profile=DEFAULT, server=pg_server_latest.admin_dsn)))
    rendered = {}
    for fmt in FORMATS:
        out = io.StringIO()
        render(report, fmt, out)
        rendered[fmt] = out.getvalue()
    assert report.exit_code == 0
    assert "give identical catalogs" in rendered["text"] and "│ events" in rendered["text"]
    assert "| events |" in rendered["markdown"] and "## agentddl apply" in rendered["markdown"]
    assert json.loads(rendered["sarif"])["runs"][0]["results"] == []
    assert rendered["github"] == ""  # no finding, no annotation


def test_kept_databases_are_named_without_the_password(capsys: Any, pg_server_latest: PostgresServer) -> None:
    server = with_password(pg_server_latest.admin_dsn)
    code, out, _ = apply(capsys, "-p", str(DEFAULT), "--server", server, "--keep", "--format", "json")
    kept = json.loads(out)["kept"]
    try:
        assert code == 0 and len(kept) == 2 and "s3cret-pw" not in out
        for where in kept:  # host:port/db, and the database is there
            with psycopg.connect(with_dbname(pg_server_latest.admin_dsn, where.rsplit("/", 1)[1])) as c:
                assert c.execute("SELECT count(*) FROM agent.runs").fetchone() == (0,)
    finally:
        for where in kept:
            pg_server_latest.drop_database(where.rsplit("/", 1)[1])
    code, _, err = apply(capsys, "-p", str(DEFAULT), "--keep")
    assert code == 2
    assert err == "agentddl: --keep needs --server: an embedded server's databases go when it stops\n"


def test_the_profile_argument_still_works_with_a_note(capsys: Any, pg_server_latest: PostgresServer) -> None:
    code, out, err = apply(capsys, str(DEFAULT), "--server", pg_server_latest.admin_dsn)
    assert code == 0 and out.rstrip().endswith("give identical catalogs.")
    assert err == "agentddl: the PROFILE argument is deprecated: use --profile PROFILE\n"


def test_a_server_older_than_the_profile_is_one_line(capsys: Any) -> None:
    code, out, err = apply(capsys, "--profile", str(EXAMPLES / "newest-engine.yaml"), "--pg-version", "14")
    assert (code, out) == (2, "")
    assert err == (
        "agentddl: the profile is for PostgreSQL 18 (engine.version), the server runs 14: "
        "give --pg-version 18 or a --server of 18 or newer\n"
    )


def test_an_install_failure_is_one_line_and_leaves_no_database(capsys: Any, pg_servers: Any) -> None:
    server = pg_servers.get(18)  # no pg_partman here: the partman profile's schema.sql fails
    before = databases(server)
    code, out, err = apply(capsys, "-p", str(EXAMPLES / "partman.yaml"), "--server", server.admin_dsn)
    assert (code, out) == (2, "")
    assert err == (
        "agentddl: PostgreSQL 18 refused the profile's schema: "
        'extension "pg_partman" is not available\n'
    )
    assert databases(server) == before


CLOSED_PORT = "postgresql://nobody@127.0.0.1:1/postgres"


@pytest.mark.parametrize("argv", [["-p", str(DEFAULT), "--server", CLOSED_PORT], []])
def test_usage_and_connection_errors_exit_2(capsys: Any, argv: list[str]) -> None:
    code, out, err = apply(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    expected = "cannot connect to PostgreSQL at 127.0.0.1:1/postgres" if argv else "apply needs one profile"
    assert err.startswith(f"agentddl: {expected}")


def databases(server: PostgresServer) -> set[str]:
    with psycopg.connect(server.admin_dsn) as connection:
        return {row[0] for row in connection.execute("SELECT datname FROM pg_database")}
