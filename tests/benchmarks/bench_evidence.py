"""Evidence (not a test): `python tests/benchmarks/bench_evidence.py [--pg-version 15]
[--history 1000000] [--clients 8] [--duration 10]` (`make bench-evidence`).

Where the hot paths' cost goes (issue 13's tuning plan reads it):

1. WAL and statements per hot path: a durable embedded server with pg_stat_statements
   loaded, a database seeded with --history rows (its live hot set retired), and
   `agentddl bench --path P` in place for each path; the WAL of the path's own segment
   (bench reports its LSNs) read back with pg_waldump: records, bytes and full-page
   images per relation; and per statement (pg_stat_statements): calls, mean time, WAL
   bytes and full-page images.
2. The plans the hot queries run with: each executed 12 times as a prepared statement
   (psycopg prepare_threshold 0, the server's plan cache deciding custom or generic),
   its plan as auto_explain reports it (as a NOTICE to this session), first and last
   execution: on a fresh install that was never analyzed (cold start) and on the seeded
   database.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from agentddl.checks.bench import BenchOptions, BenchRequest, Clients, run
from agentddl.checks.bench.work import Client
from agentddl.checks.db import PostgresServer, connect, find_installations
from agentddl.checks.db.embedded import EmbeddedCluster
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.runtime import Runtime, load_queries
from agentddl.checks.db.seed import seed_model
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile
from agentddl.generator.profile.model import Engine

PATHS = ("claim_complete", "step", "heartbeat", "checkpoint_save", "checkpoint_read", "sweep")
# pg_stat_statements, and WAL kept (bench checkpoints before every segment, which would
# recycle a segment's WAL before pg_waldump reads it)
PROBES = {
    "shared_preload_libraries": "pg_stat_statements",
    "pg_stat_statements.track": "top",
    "wal_keep_size": "16GB",
}
WALDUMP_LINE = re.compile(r"rmgr: (\w+)\s+len \(rec/tot\):\s+\d+/\s*(\d+).*?desc: (\w+)(.*)")
BLOCK_REF = re.compile(r"blkref #\d+: rel \d+/\d+/(\d+)(?: fork (\w+))? blk \d+( FPW)?")
PLAN_SCANS = re.compile(r"((?:Parallel )?(?:Seq|Index|Index Only|Bitmap Heap|Bitmap Index) Scan[^(\n]*)")
EXECUTIONS = 12


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pg-version", type=int, default=15)
    parser.add_argument("--history", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args(argv)
    bin_dir = find_installations()[args.pg_version]
    model = derive(load_default_profile().model_copy(update={"engine": Engine(version=args.pg_version)}))
    cluster = EmbeddedCluster(bin_dir, args.pg_version, durable=True, settings=PROBES)
    cluster.start()
    try:
        server = PostgresServer(cluster.admin_dsn)
        seeded = _seeded(server, model, args.history)
        title = f"PostgreSQL {args.pg_version}, {args.history:,} rows of history"
        print(f"# where the hot paths' cost goes: {title}\n")
        clients = Clients(args.clients)
        try:
            for path in PATHS:
                _path_evidence(seeded, model, path, clients, bin_dir, args)
        finally:
            clients.close()
        fresh = server.create_database()
        with connect(fresh) as conn:
            install_schema(conn, model)
        _plans(fresh, model, "a fresh install, never analyzed (cold start)")
        _plans(seeded, model, f"{args.history:,} rows of history, analyzed, after the bench")
    finally:
        cluster.stop()
    return 0


def _seeded(server: PostgresServer, model: SchemaModel, history: int) -> str:
    dsn = server.create_database()
    with connect(dsn) as conn:
        install_schema(conn, model)
        conn.execute("CREATE EXTENSION pg_stat_statements")
    if history:
        seed_model(dsn, model, history)
    with connect(dsn) as conn:  # bench in place refuses live work: retire the seeded hot set
        conn.execute(
            "UPDATE agent.attempts SET status = 'interrupted', ended_at = now(), "
            "interruption_reason = 'evidence' WHERE status = 'active'"
        )
        conn.execute(
            "UPDATE agent.runs SET status = 'cancelled', finished_at = now(), version = version + 1 "
            "WHERE status IN ('queued', 'running', 'waiting')"
        )
        conn.execute("DELETE FROM agent.run_queue")  # the live set leaves with them
    return dsn


def _path_evidence(
    dsn: str, model: SchemaModel, path: str, clients: Clients, bin_dir: Path, args: argparse.Namespace
) -> None:
    with connect(dsn) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")
    # the seeded history's biggest tenants, as bench does on a seeded scratch database
    options = BenchOptions(args.clients, args.duration, paths=(path,), tenants="biggest")
    result = run(BenchRequest(model.profile, options, dsn=dsn), clients=clients)
    figures = result.histories[0].paths[0].figures
    print(
        f"## {path}: {figures.ops_per_second:,.0f} ops/s, {figures.wal_bytes_per_op or 0:,.0f} WAL B/op, "
        f"{figures.wal_fpi_per_op or 0:.2f} FPI/op, {figures.cpu_ms_per_op or 0:.3f} CPU ms/op\n"
    )
    with connect(dsn, row_factory=dict_row) as conn:
        names = _relation_names(conn)
        data = conn.execute("SHOW data_directory").fetchone()["data_directory"]  # type: ignore[index]
        statements = conn.execute(STATEMENTS).fetchall()
    _waldump(bin_dir, data, figures.wal_from, figures.wal_to, figures.ops, names)
    print(
        "| statement (pg_stat_statements) | calls | mean ms | WAL B/call | FPI/call | blocks dirtied/call |"
    )
    print("|---|---|---|---|---|---|")
    for row in statements:
        print(
            f"| `{row['query']}` | {row['calls']:,} | {row['mean_ms']:.3f} | {row['wal_bytes']:,.0f} | "
            f"{row['wal_fpi']:.2f} | {row['dirtied']:.2f} |"
        )
    print()


STATEMENTS = """
SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls,
    mean_exec_time AS mean_ms, wal_bytes::float8 / calls AS wal_bytes, wal_fpi::float8 / calls AS wal_fpi,
    shared_blks_dirtied::float8 / calls AS dirtied
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls >= 10
    AND query !~* '(pg_stat|floor_|^CHECKPOINT|^BEGIN|^COMMIT|set_config|SET ROLE|pg_current_wal|pg_settings)'
ORDER BY total_exec_time DESC LIMIT 12
"""


def _relation_names(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """relfilenode -> relation name; a TOAST table or its index is named after its owner."""
    rows = conn.execute(
        "SELECT c.relfilenode::text AS node, "
        "coalesce(o.relname || ' (toast)', oi.relname || ' (toast index)', c.relname) AS name "
        "FROM pg_class AS c "
        "LEFT JOIN pg_class AS o ON o.reltoastrelid = c.oid "
        "LEFT JOIN pg_index AS ti ON ti.indexrelid = c.oid "
        "LEFT JOIN pg_class AS oi ON oi.reltoastrelid = ti.indrelid "
        "WHERE c.relfilenode <> 0"
    ).fetchall()
    return {row["node"]: row["name"] for row in rows}


def _waldump(
    bin_dir: Path, data: str, start: str | None, end: str | None, ops: int, names: dict[str, str]
) -> None:
    """pg_waldump of the segment: per relation, records, bytes and full-page images per operation."""
    if not start or not end or not ops:
        return
    dump = subprocess.run(
        [str(bin_dir / "pg_waldump"), "-p", str(Path(data) / "pg_wal"), "-s", start, "-e", end],
        capture_output=True,
        text=True,
        check=False,
    )
    records: Counter[str] = Counter()
    size: Counter[str] = Counter()
    images: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for line in dump.stdout.splitlines():
        match = WALDUMP_LINE.search(line)
        if not match:
            continue
        rmgr, total, kind, rest = match.groups()
        refs = BLOCK_REF.findall(rest)
        where = names.get(refs[0][0], f"relfilenode {refs[0][0]}") if refs else f"({rmgr})"
        records[where] += 1
        size[where] += int(total)
        kinds[where][f"{rmgr}/{kind}"] += 1
        for node, _, fpw in refs:
            if fpw:
                images[names.get(node, f"relfilenode {node}")] += 1
    print(f"pg_waldump {start}..{end}, per operation ({ops:,} operations):\n")
    print("| relation (first block of the record) | records/op | bytes/op | FPI/op | record kinds |")
    print("|---|---|---|---|---|")
    for where, total in size.most_common(14):
        top = ", ".join(f"{k} {n / ops:.2f}" for k, n in kinds[where].most_common(3))
        per_op = f"{records[where] / ops:.2f} | {total / ops:,.0f} | {images[where] / ops:.3f}"
        print(f"| {where} | {per_op} | {top} |")
    print()


def _plans(dsn: str, model: SchemaModel, label: str) -> None:
    print(f"## plans on {label}\n")
    tenant = "00000000-0000-0000-0000-0000000000e1"
    with connect(dsn) as conn:
        conn.execute(
            "INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 'evidence') ON CONFLICT DO NOTHING",
            [tenant],
        )
        conn.execute(
            "INSERT INTO agent.runs (tenant_id, kind) "
            "SELECT %s, 'agentddl.evidence' FROM generate_series(1, %s)",
            [tenant, EXECUTIONS + 2],
        )
    notices: list[str] = []
    queries = load_queries(model)
    with connect(dsn, autocommit=False, row_factory=dict_row) as conn:
        conn.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary or ""))
        for setting in (
            "LOAD 'auto_explain'",
            "SET auto_explain.log_min_duration = 0",
            "SET auto_explain.log_level = 'notice'",
        ):
            conn.execute(setting)
        conn.commit()
        conn.prepare_threshold = 0
        client = Client(Runtime(model, conn, tenant, queries).pin("app"), 0, "unused", 1, 60)
        for _ in range(EXECUTIONS):
            _hot_queries(client)
        conn.execute("SELECT 1")  # the last statement's plan arrives when its portal closes
        conn.commit()
    seen = _by_query(notices, queries)
    print("| query | execution 1: scans | execution 12: scans |")
    print("|---|---|---|")
    for name, plans in seen.items():
        print(f"| {name} | {_scans(plans[0])} | {_scans(plans[-1])} |")
    print()


def _hot_queries(client: Client) -> None:
    """One round of the hot queries, as a worker runs them."""
    claim = client.claim()
    assert claim is not None
    key = {**claim.scope, "run_id": claim.run_id}
    renew = {"fencing_token": claim.fencing_token, "lease_token": claim.lease_token, "lease_seconds": 60}
    client.call("heartbeat", **key, **renew)
    client.append_event(claim)
    client.save_checkpoint(claim)
    client.commit()
    client.call("latest_checkpoint", **key, run_created_at=claim.run_created_at)
    client.complete(claim)
    client.call("expire_leases", batch_size=100)
    client.commit()


HOT = (
    "claim_run",
    "heartbeat",
    "append_event",
    "save_checkpoint",
    "latest_checkpoint",
    "complete_attempt",
    "expire_leases",
)


def _by_query(notices: list[str], queries: Any) -> dict[str, list[str]]:
    """auto_explain's plans, by the hot query whose text each begins with."""
    prefixes = {}
    for name in HOT:
        text = " ".join(getattr(queries, name).sql.split())
        prefixes[name] = text[: min(60, text.find("%(") if "%(" in text else 60)]
    seen: dict[str, list[str]] = {name: [] for name in HOT}
    for notice in notices:
        body = notice.split("Query Text:", 1)[-1]
        text = " ".join(body.split())
        for name, prefix in prefixes.items():
            if text.startswith(prefix):
                seen[name].append(body)
    return {name: plans for name, plans in seen.items() if plans}


def _scans(plan: str) -> str:
    found = [" ".join(s.split()) for s in PLAN_SCANS.findall(plan)]
    return "; ".join(dict.fromkeys(found)) or "(no plan logged)"


if __name__ == "__main__":
    sys.exit(main())
