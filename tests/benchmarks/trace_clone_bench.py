"""Benchmark (not a test): `agentddl trace --dsn` on a database of realistic size, the
default profile's schema seeded with 1,000,000 events (and the other tables in
proportion) standing in for a user's database. For each way of copying it (schema only;
`--sample 1000`; `--statistics` when the server is 18+) it times the copy alone and the
whole run (copy + trace + drop), as `agentddl trace MIGRATION --dsn DB [...]` does it.

    python tests/benchmarks/trace_clone_bench.py --events 1000000      (make bench-trace-clone)
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from agentddl.checks.db import PostgresServer, connect, open_server
from agentddl.checks.db.clone import CloneSource, clone_into
from agentddl.checks.trace import TraceRequest, run
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.generator.model import derive
from agentddl.generator.profile import load_default_profile

MIGRATION = """\
SET lock_timeout = '2s';
ALTER TABLE agent.runs ADD COLUMN note text;
CREATE INDEX CONCURRENTLY runs_kind_bench_idx ON agent.runs (kind);
ALTER TABLE agent.attempts ALTER COLUMN attempt_no TYPE bigint;
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--pg-version", type=int, default=None)
    args = parser.parse_args(argv)
    profile = load_default_profile()
    version = args.pg_version or profile.engine.version
    engine = profile.engine.model_copy(update={"version": version})
    model = derive(profile.model_copy(update={"engine": engine}))
    with open_server(version=version) as server, tempfile.TemporaryDirectory() as temp:
        migration = Path(temp) / "0002_bench.sql"
        migration.write_text(MIGRATION, encoding="utf-8")
        seeding = f"seeding {args.events:,} events as the user's database"
        print(f"PostgreSQL {server.version}; {seeding}", flush=True)
        started = time.perf_counter()
        with scratch_with_schema(server, model, [], rows=args.events) as user:
            with connect(user) as conn:
                conn.execute("ANALYZE")
                size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()
            print(f"seeded in {time.perf_counter() - started:.0f} s: {size[0] if size else '?'}", flush=True)
            modes = [("schema only", CloneSource(user))]
            modes.append((f"--sample {args.sample}", CloneSource(user, sample=args.sample)))
            if server.version >= 18:
                modes.append(("--statistics", CloneSource(user, statistics=True)))
            print(f"{'copy':<16} {'copy s':>7} {'copy + trace s':>15}  findings")
            for label, source in modes:
                copy_seconds = _copy(server, source)
                started = time.perf_counter()
                request = TraceRequest(
                    [migration],
                    dsn=user,
                    sample=source.sample,
                    statistics=source.statistics,
                    server=server.admin_dsn,
                )
                result = run(request)
                total = time.perf_counter() - started
                codes = ",".join(sorted({f.code for f in result.findings}))
                print(f"{label:<16} {copy_seconds:>7.2f} {total:>15.2f}  {codes}", flush=True)
    return 0


def _copy(server: PostgresServer, source: CloneSource) -> float:
    """The copy alone, into a scratch database of its own."""
    with server.scratch_database() as copy:
        started = time.perf_counter()
        clone_into(source, copy, server.version)
        return time.perf_counter() - started


if __name__ == "__main__":
    raise SystemExit(main())
