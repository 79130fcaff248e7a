"""Figures for the audit: seeding rate at volume, audit time, each path's plan node and cost.

    python -m agentddl.checks.audit.bench [--rows 1000000] [--versions 16,18]

A benchmark, not a test: it prints figures (one embedded server per version, the default
profile at that version, a scratch database dropped afterwards).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import psycopg

from agentddl.checks.audit.run import AuditOptions, AuditResult, audit_database
from agentddl.checks.audit.session import audit_paths
from agentddl.checks.db import open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed import SeedStats, seed_model
from agentddl.generator.model import derive
from agentddl.generator.profile import load_default_profile
from agentddl.generator.profile.model import Engine


def bench(version: int, rows: int) -> tuple[SeedStats, AuditResult, float]:
    profile = load_default_profile()
    model = derive(profile.model_copy(update={"engine": Engine(version=version)}))
    with open_server(version=version) as server, server.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, model)
        stats = seed_model(dsn, model, rows)
        started = time.perf_counter()
        with psycopg.connect(dsn) as conn:
            options = AuditOptions(hypopg=server.has_extension("hypopg"))
            result = audit_database(conn, model, audit_paths(model, ()), options)
        return stats, result, time.perf_counter() - started


def report(version: int, rows: int, stats: SeedStats, result: AuditResult, seconds: float) -> str:
    loaded = sum(stats.rows.values())
    lines = [
        f"## PostgreSQL {version}, default profile, {rows:,} events",
        "",
        f"- seeding: {loaded:,} rows in {stats.seconds:.1f} s = {stats.rows_per_second:,.0f} rows/s "
        f"({', '.join(f'{t} {n:,}' for t, n in stats.rows.items())}; includes VACUUM ANALYZE)",
        f"- audit: {len(result.paths)} paths planned with EXPLAIN ANALYZE + every index dropped and "
        f"all paths re-planned: {seconds:.2f} s; passed: {result.passed}",
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
        stats, result, seconds = bench(version, args.rows)
        print(report(version, args.rows, stats, result, seconds))


if __name__ == "__main__":
    main()
