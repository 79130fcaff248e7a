"""`agentddl.checks.trace.run(TraceRequest)`, the library entry point the CLI only wraps:
findings located at the statement and the relation, the report every reporter reads,
progress while seeding."""

from __future__ import annotations

import io
from pathlib import Path

from profiles import ROOT, with_version

from agentddl.checks.core.report import render
from agentddl.checks.db import PostgresServer
from agentddl.checks.trace import TraceRequest, build_report, run
from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile

FIXTURES = Path(__file__).parents[2] / "fixtures" / "trace"
SCHEMA = FIXTURES / "schema.sql"


def test_a_finding_names_the_statement_and_the_relation(trace_server: PostgresServer) -> None:
    migration = FIXTURES / "06_int_to_bigint.sql"
    result = run(TraceRequest([migration], schema_files=[SCHEMA], server=trace_server.admin_dsn))
    (rewrite,) = [f for f in result.findings if f.code == "ADT101"]
    assert (rewrite.file, rewrite.line, rewrite.column) == (str(migration), 5, 1)
    assert rewrite.object == "public.orders"
    assert rewrite.message.startswith("rewrote public.orders, public.orders_pkey (")
    out = io.StringIO()
    render(build_report(result), "text", out)
    assert "5 | ALTER TABLE public.orders ALTER COLUMN qty TYPE bigint;" in out.getvalue()
    assert build_report(result).exit_code == 1


def test_seeding_reports_progress(trace_server: PostgresServer) -> None:
    model = derive(with_version(load_profile(ROOT / "schemas" / "default.yaml"), trace_server.version))
    lines: list[str] = []
    request = TraceRequest(
        [FIXTURES / "load" / "create_index_concurrently.sql"],
        model=model,
        rows=300,
        server=trace_server.admin_dsn,
        progress=lines.append,
    )
    result = run(request)
    assert any(line.startswith("seeding events: ") for line in lines), lines
    assert lines[-1] == "tracing 2 statement(s)"
    assert [s.error for s in result.statements] == [None, None]
