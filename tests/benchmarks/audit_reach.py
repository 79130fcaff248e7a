"""Figures for `agentddl audit --dsn`: precision, recall and time on databases of our own.

    python tests/benchmarks/audit_reach.py [--rows 1000000] [--versions 15,18]

A benchmark, not a test. The three schemas of tests/integration/audit/reach/ (a job
queue, a checkpoint store, a workflow store) are seeded to --rows in their main tables
on an embedded server per version (hypopg installed where the server has it: Debian's
15), each audited in place through the library API the command uses
(`agentddl.checks.audit.run`, what-if clone on the same server), and the verdicts
compared with the ground truth written down in tests/integration/audit/test_reach.py:
precision and recall on queries (unserved) and indexes (not needed by the workload),
and the audit's time per database.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from agentddl.checks.audit import AuditOptions, AuditRequest, AuditResult, run
from agentddl.checks.db import PostgresServer, connect, open_server
from agentddl.checks.verify import index_findings
from agentddl.checks.verify.rules import all_rules as verify_rules

TESTS = Path(__file__).resolve().parents[1] / "integration" / "audit"
REACH = TESTS / "reach"


def _truth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("test_reach", TESTS / "test_reach.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _seed(server: PostgresServer, name: str, rows: int) -> tuple[str, float]:
    started = time.perf_counter()
    dsn = server.create_database()
    with connect(dsn) as conn:
        conn.execute(f"SET reach.rows = {int(rows)}".encode())
        conn.execute((REACH / f"{name}.sql").read_text().encode())
        conn.execute("VACUUM ANALYZE")
        if server.has_extension("hypopg"):
            conn.execute("CREATE EXTENSION hypopg")
    return dsn, time.perf_counter() - started


def _audit(server: PostgresServer, dsn: str, name: str) -> AuditResult:
    request = AuditRequest(
        None,
        dsn=dsn,
        server=server.admin_dsn,
        query_files=(REACH / f"{name}_queries.sql",),
        options=AuditOptions(catalog_checks=(index_findings,), catalog_rules=verify_rules()),
    )
    return run(request, lambda line: print(f"  {line}", file=sys.stderr, flush=True))


def _ratio(hits: int, total: int) -> str:
    return f"{hits / total:.2f}" if total else "1.00"


def bench(version: int, rows: int) -> str:
    truth = _truth().TRUTH
    found_q: set[tuple[str, str]] = set()
    found_i: set[tuple[str, str]] = set()
    lines = [f"## PostgreSQL {version}, {rows:,} rows per main table", ""]
    lines += [
        "| schema | seeded (s) | audit (s) | paths | suggestions | what-if |",
        "|---|---:|---:|---:|---:|---|",
    ]
    with open_server(version=version) as server:
        for name in truth:
            dsn, seeded = _seed(server, name, rows)
            result = _audit(server, dsn, name)
            found_q |= {(name, r.path.name) for r in result.paths if r.path.kind == "user" and not r.passed}
            found_i |= {
                (name, str(f.object).split(".", 1)[1])
                for f in result.hygiene
                if f.code in ("ADA110", "ADA111") and f.severity == "warning"
            }
            method = "hypopg + clone" if result.hypopg else "clone"
            lines.append(
                f"| {name} | {seeded:.1f} | {result.seconds:.1f} | {len(result.paths)} | "
                f"{len(result.suggestions)} | {method} |"
            )
            server.drop_database(dsn)
    truth_q = {(n, q) for n, t in truth.items() for q in t.unserved}
    truth_i = {(n, i) for n, t in truth.items() for i in t.redundant}
    lines += ["", "| | precision | recall | false | missed |", "|---|---:|---:|---|---|"]
    for kind, found, wanted in (("queries", found_q, truth_q), ("indexes", found_i, truth_i)):
        hits = len(found & wanted)
        lines.append(
            f"| {kind} | {_ratio(hits, len(found))} | {_ratio(hits, len(wanted))} | "
            f"{sorted(found - wanted) or '-'} | {sorted(wanted - found) or '-'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of each schema's main table")
    parser.add_argument("--versions", default="15,18", help="PostgreSQL majors, e.g. 15,18")
    args = parser.parse_args(argv)
    for version in (int(v) for v in args.versions.split(",")):
        print(bench(version, args.rows), flush=True)


if __name__ == "__main__":
    main()
