"""Benchmark (not a test): partition maintenance under `agentddl trace --load`, on the
default schema seeded with 1,000,000 events: how long the workload's claims and step
writes waited while it ran.

The profile is schemas/default.yaml with events kept 14 days (the seeded history
window), so a maintenance run dated a day further ahead does one steady-state round:
one partition of each history table expires (detached, then dropped), one is created
ahead. Two jobs, each measured twice: while only the workload runs, and while a report's
transaction that read runs and events stays open (`--reader-seconds`, the lock a
maintenance step must not queue behind for long):

- `procedure`: `CALL agent.maintain_partitions(...)`, what PLAN.md schedules (each step
  in its own transaction under a 10 ms lock_timeout, retried);
- `statements`: the steps of `partition_steps(...)` run one by one as psql's `\\gexec`
  runs them (the detaches CONCURRENTLY), under the same lock_timeout; a step that loses
  its lock stops the job (the next run starts over).

`--statement` traces other SQL instead (e.g. the function of an earlier version:
`--statement "SELECT count(*) FROM agent.maintain_partitions(now() + interval '{days} days')"`,
{days} being how far ahead the run is dated).

    python tests/benchmarks/retention_bench.py --events 1000000      (make bench-retention)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the shared helper

from maintenance_load import CLAIMS_AND_STEP_WRITES, Measurement, measure

from agentddl.checks.db import connect, open_server
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS
from agentddl.generator.profile import Profile, load_default_profile

BOUND_MS = 50.0


def bench_profile(version: int | None) -> Profile:
    profile = load_default_profile()
    retention = profile.retention.model_copy(update={"events": 14 * 86400})
    engine = profile.engine.model_copy(update={"version": version or profile.engine.version})
    return profile.model_copy(update={"retention": retention, "engine": engine})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--pg-version", type=int, default=None)
    parser.add_argument("--server", default=None, help="a server for the scratch database")
    parser.add_argument("--statement", action="append", default=None, help="SQL to trace instead")
    parser.add_argument("--job", choices=JOBS, action="append", default=None, help="default: both")
    parser.add_argument(
        "--reader-seconds", type=float, default=3.0, help="a long reader's transaction (0: none)"
    )
    args = parser.parse_args(argv)
    model = derive(bench_profile(args.pg_version))
    jobs = ["given"] if args.statement else (args.job or list(JOBS))
    results = []
    with open_server(args.server, prefer=model.profile.engine.version) as server:
        print(f"PostgreSQL {server.version}; seeding {args.events:,} events ...", flush=True)
        started = time.perf_counter()
        with scratch_with_schema(server, model, [], rows=args.events) as dsn:
            print(f"seeded in {time.perf_counter() - started:.0f} s", flush=True)
            days = 0
            for job in jobs:
                for reader in (0.0, args.reader_seconds):
                    days += 1
                    job_sql = given(args.statement, days) or JOBS[job](dsn, model, days)
                    result = measure(
                        dsn, server.version, model, job_sql, args.connections, reader_seconds=reader
                    )
                    while_ = (
                        f"a report's transaction stays open {reader:g} s"
                        if reader
                        else "only the workload runs"
                    )
                    print(f"\n== {job}: maintenance while {while_}")
                    report(result)
                    results.append(result)
    return 0 if all(r.worst_claim_or_step_ms < BOUND_MS for r in results) else 1


def given(statements: list[str] | None, days_ahead: int) -> list[str]:
    """--statement's SQL, with {days} replaced by how many days ahead the run is dated."""
    return [s.replace("{days}", str(days_ahead)) for s in statements or []]


def procedure(dsn: str, model: SchemaModel, days_ahead: int) -> list[str]:
    """The job PLAN.md schedules, dated `days_ahead` days ahead."""
    return [f"CALL {model.schema}.maintain_partitions(now() + interval '{days_ahead} days')"]


def statements(dsn: str, model: SchemaModel, days_ahead: int) -> list[str]:
    """The psql recipe: partition_steps' statements, each on its own, as the owner role."""
    plan = f"SELECT statement FROM {model.schema}.partition_steps(now() + interval '{days_ahead} days')"
    with connect(dsn) as conn:
        steps = [row[0] for row in conn.execute(plan)]
    owner = model.profile.role("owner")
    return [f"SET lock_timeout = '{STEP_LOCK_TIMEOUT_MS}ms'", f"SET ROLE {owner}", *steps]


JOBS = {"procedure": procedure, "statements": statements}


def report(result: Measurement) -> None:
    print(f"\nmaintenance job: {len(result.statements)} statements in {result.seconds * 1000:.0f} ms")
    for statement in result.statements:
        locks = ", ".join(
            sorted({f"{k.mode} {k.relation}" for k in statement.locks if "_idx" not in k.relation})
        )
        print(
            f"  {statement.sql[:90]!r}: {statement.duration_ms:.0f} ms, workload blocked "
            f"{statement.blocked_ms or 0:.0f} ms{'; ERROR ' + statement.error if statement.error else ''}"
        )
        if locks:
            print(f"      locks: {locks[:200]}")
    print(f"workload calls completed meanwhile: {result.calls_during}")
    for name in sorted(result.waits_ms):
        mark = "  <- claim/step write" if name in CLAIMS_AND_STEP_WRITES else ""
        print(
            f"  {name:<18} longest lock wait {result.waits_ms[name]:7.1f} ms "
            f"(that call took {result.latency_ms[name]:7.1f} ms){mark}"
        )
    worst = result.worst_claim_or_step_ms
    verdict = "within" if worst < BOUND_MS else "OVER"
    print(f"claims and step writes waited at most {worst:.1f} ms ({verdict} {BOUND_MS:g} ms)")


if __name__ == "__main__":
    sys.exit(main())
