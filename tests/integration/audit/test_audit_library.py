"""`agentddl.checks.audit.run(...)` from Python and `agentddl audit` report the same
findings on the same database: the command line only parses options, calls `run` and
renders (the default profile, and the index rules ADV101-ADV104, come from the library)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentddl.checks import audit
from agentddl.checks.cli.main import main
from agentddl.checks.core.findings import Finding
from agentddl.checks.db import connect

# A database agentddl did not generate: a foreign key no index leads with (ADV101), an
# index twice (ADV102), and a query that reads the child table by that key.
USERS_SCHEMA = """
CREATE TABLE shop.customers (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE shop.orders (
    id bigint PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES shop.customers (id),
    placed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_placed_idx ON shop.orders (placed_at);
CREATE INDEX orders_placed_idx1 ON shop.orders (placed_at);
INSERT INTO shop.customers SELECT g, 'c' || g FROM generate_series(1, 200) AS g;
INSERT INTO shop.orders
    SELECT g, 1 + g % 200, now() - g * interval '1 minute' FROM generate_series(1, 2000) AS g;
ANALYZE;
"""
QUERIES = """-- name: orders_of_customer(customer_id)
-- example: customer_id = 7
SELECT o.id FROM shop.orders AS o WHERE o.customer_id = :customer_id;
"""


def _keys(findings: list[Finding] | list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    rows = [f.as_dict() if isinstance(f, Finding) else f for f in findings]
    return sorted((row["code"], row.get("object") or "", row["message"]) for row in rows)


def _cli_findings(args: list[str], capsys: Any) -> tuple[int, list[dict[str, Any]]]:
    code = main([*args, "--format", "json"])
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    return code, json.loads(out.out)["findings"]


def test_in_place_the_library_and_the_cli_report_the_same_findings(
    pg_servers: Any, tmp_path: Path, capsys: Any
) -> None:
    server = pg_servers.get(15)
    users = server.create_database()
    try:
        with connect(users, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA shop")
            conn.execute(USERS_SCHEMA)
        queries = tmp_path / "shop.sql"
        queries.write_text(QUERIES)
        request = audit.AuditRequest(
            None, dsn=users, server=server.admin_dsn, query_files=(queries,), sample_rows=0
        )
        result = audit.run(request)
        args = ["audit", "--dsn", users, "--server", server.admin_dsn, "--queries", str(queries)]
        code, cli = _cli_findings([*args, "--sample", "0"], capsys)
    finally:
        server.drop_database(users)
    assert {"ADV101", "ADV102"} <= {f.code for f in result.findings}  # verify's index rules, from Python
    assert _keys(cli) == _keys(result.findings)
    assert code == audit.build_report(result).exit_code


def test_on_the_default_profile_the_library_and_the_cli_report_the_same_findings(
    pg_servers: Any, capsys: Any
) -> None:
    from agentddl.generator.profile import load_default_profile

    server = pg_servers.get(load_default_profile().engine.version)
    options = audit.AuditOptions(analyze=False)
    result = audit.run(audit.AuditRequest(None, server=server.admin_dsn, events=2000, options=options))
    args = ["audit", "--server", server.admin_dsn, "--rows", "2000", "--no-analyze"]
    code, cli = _cli_findings(args, capsys)
    assert result.paths  # the default profile's paths, chosen by the library
    assert [(c, o) for c, o, _ in _keys(cli)] == [(c, o) for c, o, _ in _keys(result.findings)]
    assert code == audit.build_report(result).exit_code
