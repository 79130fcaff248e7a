"""Benchmark (not a test): `trace --load` on a delta revision (issue 12) at 1,000,000
seeded events: per step of the revision, the longest wait of any workload session and
the lock the step took; exits 1 if a wait exceeds --limit-ms (200 ms).

A is the default profile; B changes many keys with online recipes at once (CHANGES).
`agentddl generate` writes A's revision 0001 and then, for B, the next revision (the
delta) into a scratch project. A scratch database gets A's schema and the seeded events;
the delta runs on it while the workload (start, claim, step writes, reads on
--connections sessions) runs, through `agentddl trace`'s own tracer, lock watcher and
workload (trace_on with load=True).

The delta builds the new index of the partitioned events table in a Python loop over
the partitions that exist when it runs (index_partitions(): CREATE INDEX CONCURRENTLY
and ATTACH PARTITION per partition), which Alembic's offline mode (what `trace` reads
from a revision) can only show as a comment. So the revision is rendered offline as
`trace` renders it, and that comment is replaced by the statements the loop runs on
this database's partitions (the same names, the same order); the script is traced as
SQL, each statement mapped back to its step by the revision's source markers.

    python tests/benchmarks/delta_trace_bench.py --events 1000000 --pg-version 16   (make bench-delta)
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentddl.checks.alembic.markers import MARKER, source_markers
from agentddl.checks.alembic.offline import offline_sql
from agentddl.checks.db import connect, open_server
from agentddl.checks.pg.lockmodes import strength
from agentddl.checks.trace import TraceResult
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.checks.trace.source import load_migrations
from agentddl.checks.trace.tracing import TraceOptions, trace_on
from agentddl.checks.trace.types import StatementTrace
from agentddl.generator.model import derive
from agentddl.generator.output import write_files
from agentddl.generator.profile import Profile
from agentddl.generator.profile.load import load_default_profile
from agentddl.generator.revision.next import Request, plan_generation

# Keys B changes from the default profile, each with an online recipe (see
# tests/integration/migrations/profile_changes.py, the matrix of single changes).
CHANGES: dict[str, Any] = {
    "lock_strategy": "lease",  # new claim queries; the claim index is rebuilt
    "tenancy.row_level_security": True,  # RLS and policies on every tenant table
    "retention.events": "90d",  # longer retention: partition_steps() replaced
    "retention.checkpoints": "60d",
    "volume.steps_per_second": 2,  # a lower tier: month partitions, B-tree instead of BRIN
    "payload.inline_limit": "32kB",  # new CHECK constraints: NOT VALID, then VALIDATE
    "payload.event_limit": "4kB",
    "payload.outbox_limit": "128kB",
    "lease.duration": "5m",  # runs.max_attempts default (lease.max_attempts)
    "lease.max_attempts": 9,
}
ONLINE_ONLY = re.compile(
    r"^-- agentddl-source: \d+\n"
    r"-- online only: for each partition P of (?P<parent>\S+) \(pg_inherits\) without an index "
    r"attached to (?P<index>\S+):\n"
    r"-- CREATE INDEX CONCURRENTLY P_(?P<suffix>\S+) ON P (?P<definition>.*); ALTER INDEX \S+ "
    r"ATTACH PARTITION P_\S+\n;$",
    re.MULTILINE,
)
# The partitions index_partitions() loops over, named as it names their indexes (the
# revision's PARTITIONS query, less its "no index attached yet" test: the index is new).
PARTITIONS_SQL = """
SELECT format('%%I.%%I', n.nspname, c.relname),
       format('%%I', left(c.relname || '_' || %(suffix)s, 63)),
       format('%%I.%%I', n.nspname, left(c.relname || '_' || %(suffix)s, 63))
FROM pg_catalog.pg_inherits AS i
JOIN pg_catalog.pg_class AS c ON c.oid = i.inhrelid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
WHERE i.inhparent = CAST(%(parent)s AS regclass)
ORDER BY c.relname
"""
PARTITION = re.compile(r"^(.+)_p\d{8,12}$")
STEP_COMMENT = re.compile(r"^\s+# (\d+)\. (\w+): (.*)$")


@dataclass
class StepFigure:
    """One step of the revision as the workload saw it."""

    number: int
    title: str
    statements: int = 0
    worst_wait_ms: float = 0.0
    duration_ms: float = 0.0
    worst_at: str = ""  # the kind of statement the worst wait was charged to
    lock_mode: str | None = None  # the strongest lock mode of its statements
    lock_strength: int = -1
    locked: set[str] = field(default_factory=set)  # the relations it took lock_mode on


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--pg-version", type=int, default=16)
    parser.add_argument("--server", default=None, help="a server for the scratch database")
    parser.add_argument("--limit-ms", type=float, default=200.0)
    parser.add_argument(
        "--workload",
        choices=("new", "old"),
        default="new",
        help="the workers' queries: B's (rolled out first, as the revision's notes say) or A's",
    )
    args = parser.parse_args(argv)
    default = load_default_profile()
    old = _changed(default, {"engine.version": args.pg_version})
    new = _changed(old, CHANGES)
    options = TraceOptions(
        model=derive(new if args.workload == "new" else old),
        load=True,
        connections=args.connections,
        settle_seconds=2.0,
    )
    began = time.perf_counter()
    figures, result = _trace_delta(old, new, options, args.events, args.server)
    _print(figures, result, args.limit_ms)
    print(f"total {time.perf_counter() - began:.0f} s")
    failed = [s for s in result.statements if s.error]
    if failed:
        print(f"FAILED: {failed[0].sql[:120]}: {failed[0].error}")
        return 1
    return 1 if max((f.worst_wait_ms for f in figures), default=0.0) > args.limit_ms else 0


def _trace_delta(
    old: Profile, new: Profile, options: TraceOptions, events: int, server_dsn: str | None
) -> tuple[list[StepFigure], TraceResult]:
    """A's database seeded with `events`, the A -> B delta traced on it under load."""
    version = old.engine.version
    with tempfile.TemporaryDirectory(prefix="agentddl-delta-bench-") as temp:
        revision = _delta_revision(old, new, Path(temp) / "project")
        with open_server(server_dsn, version=None if server_dsn else version) as server:
            print(f"PostgreSQL {server.version}; seeding {events:,} events ...", flush=True)
            started = time.perf_counter()
            with scratch_with_schema(server, derive(old), [], rows=events) as dsn:
                print(f"seeded in {time.perf_counter() - started:.0f} s", flush=True)
                script, markers = _online_script(revision, dsn, Path(temp) / "delta.sql")
                files = load_migrations([script], server.version)
                print(f"tracing {len(files[0].statements)} statements of {revision.name} ...", flush=True)
                started = time.perf_counter()
                result = trace_on(dsn, server.version, files, options)
                print(f"traced in {time.perf_counter() - started:.0f} s", flush=True)
        return _per_step(result, markers, revision.read_text(encoding="utf-8")), result


def _changed(profile: Profile, settings: dict[str, Any]) -> Profile:
    """`profile` with dotted settings changed (as profile_changes.changed in the tests)."""
    data = profile.model_dump(mode="json", by_alias=True)
    for dotted, value in settings.items():
        *sections, key = dotted.split(".")
        target = data
        for section in sections:
            target = target[section]
        target[key] = value
    return Profile.model_validate(data)


def _delta_revision(old: Profile, new: Profile, project: Path) -> Path:
    """`agentddl generate` of A, then of B, into one folder: B's revision is the delta."""
    for profile in (old, new):
        write_files(plan_generation(Request(profile, project)).files, project)
    first, *deltas = sorted((project / "versions").glob("*.py"))
    if len(deltas) != 1:
        raise SystemExit(f"expected one delta revision after {first.name}, got {deltas}")
    print(f"delta revision {deltas[0].name}: {len(CHANGES)} keys changed", flush=True)
    return deltas[0]


def _online_script(revision: Path, dsn: str, script: Path) -> tuple[Path, dict[int, int]]:
    """The revision's offline SQL with every index_partitions() comment replaced by the
    statements it runs online on this database; SQL line -> revision line."""
    (rendered,) = offline_sql([revision])
    if rendered.error is not None:
        raise SystemExit(f"{revision}: Alembic cannot render it: {rendered.error}")
    source = revision.read_text(encoding="utf-8")
    with connect(dsn) as conn:

        def expand(match: re.Match[str]) -> str:
            call = f"index_partitions({match['parent']!r}, {match['index']!r}, "
            line = next(n for n, text in _upgrade_lines(source) if call in text)
            rows = conn.execute(PARTITIONS_SQL, {"suffix": match["suffix"], "parent": match["parent"]})
            statements = []
            for partition, child, qualified in rows.fetchall():
                statements += [
                    f"DROP INDEX CONCURRENTLY IF EXISTS {qualified};",
                    f"CREATE INDEX CONCURRENTLY {child} ON {partition} {match['definition']};",
                    f"ALTER INDEX {match['index']} ATTACH PARTITION {qualified};",
                ]
            return f"{MARKER}{line}\n" + "\n".join(statements)

        sql, count = ONLINE_ONLY.subn(expand, rendered.sql)
    calls = sum("index_partitions(" in text for _n, text in _upgrade_lines(source))
    if count != calls:
        raise SystemExit(f"{revision}: found {count} index_partitions() comments in its offline SQL")
    script.write_text(sql, encoding="utf-8")
    return script, source_markers(sql)


def _upgrade_lines(source: str) -> list[tuple[int, str]]:
    """(line number, text) of the revision's upgrade() body."""
    lines = source.splitlines()
    start = lines.index("def upgrade() -> None:")
    end = lines.index("def downgrade() -> None:")
    return [(n, lines[n - 1]) for n in range(start + 1, end + 1)]


def _per_step(result: TraceResult, markers: dict[int, int], source: str) -> list[StepFigure]:
    """Each statement charged to the step whose comment precedes its op.* line."""
    steps: dict[int, StepFigure] = {}
    owner: dict[int, int] = {}  # revision line -> step number
    current = 0
    for number, text in _upgrade_lines(source):
        match = STEP_COMMENT.match(text)
        if match:
            current = int(match[1])
            steps[current] = StepFigure(current, f"{match[2]}: {match[3]}")
        owner[number] = current
    for statement in result.statements:
        step = steps.get(owner.get(markers.get(statement.line, 0), 0))
        if step is None:
            raise SystemExit(f"line {statement.line}: no step of the revision: {statement.sql[:80]}")
        step.statements += 1
        if (statement.blocked_ms or 0.0) > step.worst_wait_ms:
            step.worst_wait_ms, step.worst_at = statement.blocked_ms or 0.0, _kind(statement.sql)
        step.duration_ms += statement.duration_ms
        _take_lock(step, statement)
    return [steps[n] for n in sorted(steps)]


def _take_lock(step: StepFigure, statement: StatementTrace) -> None:
    """The step's strongest lock on a relation that existed before, and on what."""
    if statement.strongest_lock is None or strength(statement.strongest_lock) < step.lock_strength:
        return
    mode = statement.strongest_lock
    if strength(mode) > step.lock_strength:
        step.lock_strength, step.locked = strength(mode), set()
    step.lock_mode = mode
    step.locked |= {k.relation for k in statement.locks if k.mode == mode}


def _lock_text(step: StepFigure) -> str:
    """'AccessExclusiveLock on agent.events (+19 partitions, +20 other)': a partition is
    named <table>_p<digits>; the rest are indexes and such."""
    if step.lock_mode is None:
        return "no table lock"
    partitions: dict[str, int] = {}
    others: list[str] = []
    for name in sorted(step.locked):
        match = PARTITION.match(name)
        if match:
            partitions[match[1]] = partitions.get(match[1], 0) + 1
        else:
            others.append(name)
    tables = [n for n in others if n in partitions]  # partitioned tables locked themselves
    # Only partitions: locked one at a time by bare statements, seen by sampling (a
    # quick build can be missed), so no count.
    named = tables or [f"partitions of {table}" for table in partitions] or others[:1]
    extra = [f"+{partitions[table]} partitions" for table in tables]
    rest = len(others) - len(tables) - (0 if tables or partitions else 1)
    extra += [f"+{rest} other"] if rest else []
    return f"{step.lock_mode} on {', '.join(named)}" + (f" ({', '.join(extra)})" if extra else "")


def _kind(sql: str) -> str:
    """'ALTER INDEX', 'CREATE INDEX', 'DO' (a locked() block): what a statement is."""
    words = [w for w in sql.split() if w.upper() not in ("CONCURRENTLY", "UNIQUE")]
    return " ".join(words[:1] if words[:1] == ["DO"] else words[:2])


def _print(figures: list[StepFigure], result: TraceResult, limit_ms: float) -> None:
    print(f"\n{'#':>3}  {'worst wait':>10}  {'at':<12}  {'run':>9}  {'stmts':>5}  lock  /  step")
    for f in figures:
        print(
            f"{f.number:>3}  {f.worst_wait_ms:>7.0f} ms  {f.worst_at:<12}  {f.duration_ms:>6.0f} ms  "
            f"{f.statements:>5}  "
            f"{_lock_text(f)}  /  {f.title[:90]}"
        )
    worst = max(figures, key=lambda f: f.worst_wait_ms)
    verdict = "within" if worst.worst_wait_ms <= limit_ms else "OVER"
    print(
        f"\nlongest workload wait: {worst.worst_wait_ms:.0f} ms (step {worst.number}), "
        f"{verdict} the {limit_ms:.0f} ms limit"
    )
    if result.throughput is not None:
        t = result.throughput
        rates = f"{t.before:.0f} q/s before, {t.during:.0f} during, {t.after:.0f} after"
        print(f"workload ({t.connections} sessions, {t.queries} calls): {rates} ({t.errors} errors)")


if __name__ == "__main__":
    sys.exit(main())
