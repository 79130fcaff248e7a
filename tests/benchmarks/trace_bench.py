"""Benchmark (not a test): `trace --load` on the default schema seeded with 1,000,000
events, for a plain CREATE INDEX on events and for the same index built CONCURRENTLY.

events is partitioned, and CREATE INDEX CONCURRENTLY on a partitioned table is refused,
so the concurrent variant is PostgreSQL's documented recipe (ddl "Partition
Maintenance"): CREATE INDEX ... ON ONLY the parent (an invalid index, instant), CREATE
INDEX CONCURRENTLY on every partition, ALTER INDEX ... ATTACH PARTITION each one (the
parent index becomes valid when the last is attached). Both run on one seeded database
(the concurrent one first, then its index is dropped and the plain one runs).

    python tests/benchmarks/trace_bench.py --events 1000000      (make bench-trace)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from psycopg import sql

from agentddl.checks.db import connect, open_server
from agentddl.checks.trace import TraceResult
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.checks.trace.source import load_migrations
from agentddl.checks.trace.tracing import TraceOptions, trace_on
from agentddl.checks.trace.types import StatementTrace
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile

INDEX = "events_kind_bench_idx"
COLUMN = "kind"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--pg-version", type=int, default=None)
    parser.add_argument("--server", default=None, help="a server for the scratch database")
    args = parser.parse_args(argv)
    profile = load_default_profile()
    version = args.pg_version or profile.engine.version
    model = derive(
        profile.model_copy(update={"engine": profile.engine.model_copy(update={"version": version})})
    )
    options = TraceOptions(model=model, load=True, connections=args.connections, settle_seconds=2.0)
    with open_server(args.server, prefer=version) as server:
        print(f"PostgreSQL {server.version}; seeding {args.events} events ...", flush=True)
        started = time.perf_counter()
        with scratch_with_schema(server, model, [], rows=args.events) as dsn:
            print(f"seeded in {time.perf_counter() - started:.0f} s", flush=True)
            with tempfile.TemporaryDirectory(prefix="agentddl-trace-bench-") as temp:
                concurrent, plain = _migrations(dsn, model, Path(temp))
                recipe = trace_on(dsn, server.version, load_migrations([concurrent], server.version), options)
                _drop_index(dsn, model)
                blocking = trace_on(dsn, server.version, load_migrations([plain], server.version), options)
    _print("plain CREATE INDEX on the partitioned events table", blocking)
    _print("ON ONLY + CREATE INDEX CONCURRENTLY per partition + ATTACH PARTITION", recipe)
    return 0


def _migrations(dsn: str, model: SchemaModel, folder: Path) -> tuple[Path, Path]:
    """The two migrations as SQL files (names quoted by psycopg, partitions read back)."""
    schema = model.schema
    with connect(dsn) as conn:
        partitions = [
            name
            for (name,) in conn.execute(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = %s::regclass ORDER BY c.relname",
                [f"{schema}.events"],
            )
        ]

        def name(*parts: str) -> str:
            return sql.Identifier(*parts).as_string(conn)

        parent, index = name(schema, "events"), name(schema, INDEX)
        lines = [f"CREATE INDEX {name(INDEX)} ON ONLY {parent} ({COLUMN});"]
        for partition in partitions:
            part_index = f"{partition}_{COLUMN}_bench_idx"
            target = name(schema, partition)
            lines.append(f"CREATE INDEX CONCURRENTLY {name(part_index)} ON {target} ({COLUMN});")
            lines.append(f"ALTER INDEX {index} ATTACH PARTITION {name(schema, part_index)};")
        plain_sql = f"CREATE INDEX {name(INDEX)} ON {parent} ({COLUMN});\n"
    concurrent, plain = folder / "concurrently.sql", folder / "plain.sql"
    concurrent.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plain.write_text(plain_sql, encoding="utf-8")
    return concurrent, plain


def _drop_index(dsn: str, model: SchemaModel) -> None:
    with connect(dsn) as conn:
        conn.execute(sql.SQL("DROP INDEX {}.{}").format(sql.Identifier(model.schema), sql.Identifier(INDEX)))


def _print(title: str, result: TraceResult) -> None:
    builds = [s for s in result.statements if s.sql.startswith("CREATE INDEX")]
    print(f"\n{title} ({len(result.statements)} statements)")
    print(f"  index build time: {sum(s.duration_ms for s in builds):.0f} ms")
    kinds: dict[str, list[StatementTrace]] = {}
    for statement in result.statements:
        kinds.setdefault(_kind(statement.sql), []).append(statement)
    for kind, statements in kinds.items():
        worst = max(statements, key=lambda s: s.blocked_ms or 0.0)
        tables = sorted(
            {f"{k.mode} {k.relation}" for s in statements for k in s.locks if "idx" not in k.relation}
        )
        print(
            f"  {kind} x{len(statements)}: longest workload wait {worst.blocked_ms or 0.0:.0f} ms, "
            f"longest run {max(s.duration_ms for s in statements):.0f} ms; table locks: "
            f"{', '.join(tables[:2]) + (', ...' if len(tables) > 2 else '') or 'none'}"
        )
    if result.throughput is not None:
        t = result.throughput
        rates = f"{t.before:.0f} q/s before, {t.during:.0f} during, {t.after:.0f} after"
        print(f"  workload ({t.connections} sessions): {rates} ({t.errors} errors)")


def _kind(statement: str) -> str:
    words = statement.split()
    if words[:3] == ["CREATE", "INDEX", "CONCURRENTLY"]:
        return "CREATE INDEX CONCURRENTLY (a partition)"
    if "ONLY" in words:
        return "CREATE INDEX ON ONLY (the parent)"
    if words[:2] == ["ALTER", "INDEX"]:
        return "ALTER INDEX ATTACH PARTITION"
    return " ".join(words[:2])


if __name__ == "__main__":
    sys.exit(main())
