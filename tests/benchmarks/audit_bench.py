"""Figures for the audit: seeding rate at volume, audit time, each path's plan node and cost.

    python tests/benchmarks/audit_bench.py [--rows 1000000] [--versions 16,18]

A benchmark, not a test: it prints figures (one embedded server per version, the default
profile at that version, a scratch database dropped afterwards), through the library
API `agentddl.checks.audit.run` the command uses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agentddl.checks.audit import AuditRequest, AuditResult, run
from agentddl.generator.model import derive
from agentddl.generator.profile import load_default_profile
from agentddl.generator.profile.model import Engine


def bench(version: int, rows: int) -> AuditResult:
    profile = load_default_profile()
    model = derive(profile.model_copy(update={"engine": Engine(version=version)}))
    return run(AuditRequest(model, pg_version=version, events=rows), _progress)


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


def report(version: int, rows: int, result: AuditResult) -> str:
    assert result.seed is not None
    stats = result.seed
    loaded = sum(stats.rows.values())
    lines = [
        f"## PostgreSQL {version}, default profile, {rows:,} events",
        "",
        f"- seeding: {loaded:,} rows in {stats.seconds:.1f} s = {stats.rows_per_second:,.0f} rows/s "
        f"({', '.join(f'{t} {n:,}' for t, n in stats.rows.items())}; includes VACUUM ANALYZE)",
        f"- audit: {len(result.paths)} paths planned with EXPLAIN ANALYZE + every index dropped and "
        f"all paths re-planned: {result.seconds:.2f} s; passed: {result.passed}",
        "",
        "| path | plan node | est. cost | actual ms |",
        "|---|---|---:|---:|",
    ]
    for r in result.paths:
        if r.plan is None:
            continue
        ms = f"{r.plan.actual_ms:.2f}" if r.plan.actual_ms is not None else "-"
        lines.append(f"| {r.path.name} | {r.plan.main_node(r.path.table)} | {r.plan.cost:,.1f} | {ms} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000, help="events to seed")
    parser.add_argument("--versions", default="16", help="PostgreSQL majors, e.g. 16,18")
    args = parser.parse_args(argv)
    for version in (int(v) for v in args.versions.split(",")):
        print(report(version, args.rows, bench(version, args.rows)))


if __name__ == "__main__":
    main()
