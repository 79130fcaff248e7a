"""Figures (not a test): `python tests/benchmarks/peer_bench.py [--pg-version 15]
[--clients 8] [--duration 10] [--history 10000] [--repeat 1]` (`make bench-peers`).

agentddl's hot paths side by side with three peers that do the same jobs, in one run on
one durable embedded PostgreSQL server (--pg-version), every figure a ratio to the
durable-commit floor measured right before and right after it (the machine is shared:
absolute rates drift, ratios measured in the same run are what count):

- the peers, at pinned versions downloaded from PyPI into build/peers/ (`pip download
  --no-deps`, nothing installed; peer_sql.py reads their SQL out of the packages):
  procrastinate 3.10.* (a job queue: fetch one job, COMMIT; finish it, COMMIT), pgmq
  1.1.4 (a message queue, the pgmq extension's SQL its client ships: read one message
  with a visibility timeout, COMMIT; delete it, COMMIT) and langgraph-checkpoint-postgres
  3.2.* (a checkpoint store: put a checkpoint of the profile's size, COMMIT; read a
  thread's latest checkpoint), each sent by bench's own client processes
  (peer_work.py) in a scratch database of their own, between bench's floors
  (peer_stage.py);
- agentddl's own paths through `agentddl bench`'s Python API on the same server and the
  same client processes: claim + complete, checkpoint save, latest-checkpoint read and a
  full step, on the default profile (its engine set to --pg-version) with --history rows.

Per path: operations/s ÷ the 1-commit floor, server CPU per operation (every server
process, from /proc as bench measures it) and per commit ÷ the floor's, the client
processes' own CPU, WAL bytes and full-page images per operation and median latency;
then the headline ratios (claim + complete ÷ the best queue peer, checkpoint save ÷
langgraph's put, latest-checkpoint read ÷ floor). With --repeat N the whole run is
repeated on the same server, alternating which side goes first: medians (min-max). The
whole run's JSON: build/bench-peers.json (`--table-from` it prints the tables again).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from statistics import mean, median
from typing import Any

from peer_sql import PEERS_DIR, Peer, load_peers
from peer_stage import measure_peers
from peer_work import QUEUE_PEERS

from agentddl.checks.bench import BenchOptions, BenchRequest, Clients, run
from agentddl.checks.db import PostgresServer, open_server
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile, load_default_profile
from agentddl.generator.profile.model import Engine

AGENTDDL_PATHS = ("claim_complete", "checkpoint_save", "checkpoint_read", "step")
Row = dict[str, Any]
# (key, who, what) in the table's order; keys are bench's path names, the peers' workloads, floors
ROWS = (
    ("floor@peers", "bench", "floor: 1 commit (the peers' database)"),
    ("floor@agentddl", "bench", "floor: 1 commit (agentddl's database)"),
    ("claim_complete", "agentddl", "claim + complete"),
    ("peer_procrastinate", "procrastinate", "fetch + finish a job"),
    ("peer_pgmq", "pgmq", "read + delete a message"),
    ("checkpoint_save", "agentddl", "checkpoint save"),
    ("peer_langgraph_put", "langgraph", "put a checkpoint"),
    ("checkpoint_read", "agentddl", "latest checkpoint"),
    ("peer_langgraph_read", "langgraph", "latest checkpoint (get_tuple)"),
    ("step", "agentddl", "full step"),
)
COLUMNS = (
    ("commits", "commits", 0),
    ("ops_per_second", "ops/s", 0),
    ("ratio", "÷ floor", 3),
    ("server_cpu_ms_per_op", "server CPU ms/op", 3),  # every server process (/proc)
    ("cpu_per_commit_ratio", "CPU/commit ÷ floor's", 2),  # the clients' backends (bench's figure)
    ("client_cpu_ms_per_op", "client CPU ms/op", 3),  # the client processes' own (driver, parsing)
    ("wal_bytes_per_op", "WAL B/op", 0),
    ("wal_fpi_per_op", "FPI/op", 2),
    ("p50_ms", "p50 ms", 2),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pg-version", type=int, default=15, help="the embedded server's major")
    parser.add_argument("--clients", type=int, default=8, help="client processes (bench's)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measured segment")
    parser.add_argument("--history", type=int, default=10_000, help="rows of history in agentddl's database")
    parser.add_argument("--repeat", type=int, default=1, help="whole runs on the same server")
    parser.add_argument("--peers-dir", type=Path, default=PEERS_DIR, help="where the peers are downloaded")
    parser.add_argument("--out", type=Path, default=Path("build/bench-peers.json"), help="the run's JSON")
    parser.add_argument("--table-from", type=Path, default=None, help="only print the tables of a run's JSON")
    args = parser.parse_args(argv)
    if args.table_from is not None:
        document = json.loads(args.table_from.read_text(encoding="utf-8"))
        print(_markdown({**document, **_figures(document["repeats"])}))
        return 0
    try:
        return _bench(args)
    except AgentDDLError as error:
        print(f"peer_bench: {error}", file=sys.stderr)
        return 2


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


def _bench(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise AgentDDLError(f"--repeat {args.repeat}: at least 1")
    peers = load_peers(args.peers_dir)
    profile = load_default_profile().model_copy(update={"engine": Engine(version=args.pg_version)})
    options = BenchOptions(args.clients, args.duration, (args.history,), AGENTDDL_PATHS)
    started, load = time.monotonic(), os.getloadavg()[0]
    repeats: list[dict[str, Any]] = []
    with open_server(version=args.pg_version, durable=True) as server:
        _progress(f"started a durable embedded PostgreSQL {server.version}")
        clients = Clients(args.clients)
        try:
            for number in range(args.repeat):
                repeats.append(_repeat(server, profile, peers, options, clients, peers_first=number % 2 == 0))
        finally:
            clients.close()
    facts = {"seconds": round(time.monotonic() - started, 1), "load_average": [load, os.getloadavg()[0]]}
    document = _document(args, peers, repeats, facts)
    print(_markdown(document))
    _write(args.out, document)
    return 0


def _repeat(
    server: PostgresServer,
    profile: Profile,
    peers: dict[str, Peer],
    options: BenchOptions,
    clients: Clients,
    peers_first: bool,
) -> dict[str, Any]:
    """One whole run: the peers' segments and agentddl's bench, in either order."""
    found: dict[str, Any] = {"order": "peers first" if peers_first else "agentddl first"}
    for side in ("peers", "agentddl") if peers_first else ("agentddl", "peers"):
        if side == "peers":
            model = derive(profile)
            found["peers"] = measure_peers(server, model, peers, options, clients, _progress).to_json()
        else:
            request = BenchRequest(profile, options, server=server.admin_dsn)
            found["agentddl"] = run(request, clients=clients, progress=_progress).to_json()
    return found


def _document(
    args: argparse.Namespace, peers: dict[str, Peer], repeats: list[dict[str, Any]], facts: dict[str, Any]
) -> dict[str, Any]:
    first = repeats[0]["agentddl"]
    run_facts = {
        "date": date.today().isoformat(),
        "postgres": first["run"]["postgres"],
        "server_version": first["settings"]["settings"].get("server_version"),
        "durable": first["run"]["durable"],
        "peers_durable": all(r["peers"]["durable"] for r in repeats),
        "cpus": os.cpu_count(),
        "clients": args.clients,
        "duration_seconds": args.duration,
        "history": args.history,
        "repeat": args.repeat,
        "profile": first["run"]["profile"],
        **facts,
    }
    return {
        "run": run_facts,
        "peers": {name: peer.to_json() for name, peer in peers.items()},
        **_figures(repeats),
        "repeats": repeats,
    }


def _figures(repeats: list[dict[str, Any]]) -> dict[str, Any]:
    """The table's rows and the headline ratios, from the repeats' measurements."""
    return {
        "table": [_table_row(key, who, what, repeats) for key, who, what in ROWS],
        "headline": _headlines(repeats),
    }


def paths_of(repeat: dict[str, Any]) -> dict[str, Row]:
    """Every measured path of one repeat by key (ROWS), the floors as rows of their own."""
    history = repeat["agentddl"]["histories"][0]
    found = {p["path"]: p for p in repeat["peers"]["paths"]}
    found.update({p["path"]: p for p in history["paths"]})
    found["floor@peers"] = _floor_row(repeat["peers"]["segments"])
    found["floor@agentddl"] = _floor_row(history["segments"])
    return found


def _floor_row(segments: list[Row]) -> Row:
    floors = [s for s in segments if s["workload"] == "floor"]

    def avg(key: str) -> float | None:
        values = [s[key] for s in floors if s.get(key) is not None]
        return mean(values) if values else None

    row = {key: avg(key) for key, _, _ in COLUMNS if key not in ("commits", "ratio", "cpu_per_commit_ratio")}
    return {**row, "commits": 1, "ratio": 1.0, "cpu_per_commit_ratio": 1.0, "measurements": len(floors)}


def _table_row(key: str, who: str, what: str, repeats: list[dict[str, Any]]) -> Row:
    found = [paths_of(r).get(key) for r in repeats]
    cells = {column: [f.get(column) if f else None for f in found] for column, _, _ in COLUMNS}
    return {"key": key, "who": who, "what": what, **cells}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


BEST_QUEUE = "best_queue"  # in a repeat's paths: the queue peer with the best median ratio over the runs
Headline = Callable[[dict[str, Row]], float | None]


def _best_queue(every: list[dict[str, Row]]) -> str | None:
    """The queue peer whose ops/s ÷ floor has the best median over the runs."""

    def rate(key: str) -> float:
        return float(median(p[key]["ratio"] for p in every if key in p))

    found = [k for k in QUEUE_PEERS if all(k in p for p in every)]
    return max(found, key=rate) if found else None


def _versus(ours: str, theirs: str, column: str) -> Headline:
    """ours ÷ theirs on `column`."""

    def pick(paths: dict[str, Row]) -> float | None:
        if ours not in paths or theirs not in paths:
            return None
        return _ratio(paths[ours].get(column), paths[theirs].get(column))

    return pick


def _column(key: str, column: str) -> Headline:
    return lambda paths: paths[key].get(column) if key in paths else None


def _pair(title: str, ours: str, theirs: str, wal: bool = True) -> list[tuple[str, Headline]]:
    """agentddl's path ÷ a peer's: rate (each ÷ its own floor), server CPU and WAL per operation."""
    found = [
        (f"{title}: ops/s ÷ floor, agentddl's ÷ the peer's", _versus(ours, theirs, "ratio")),
        (
            f"{title}: server CPU per operation, agentddl's ÷ the peer's",
            _versus(ours, theirs, "server_cpu_ms_per_op"),
        ),
    ]
    if wal:
        found.append(
            (
                f"{title}: WAL bytes per operation, agentddl's ÷ the peer's",
                _versus(ours, theirs, "wal_bytes_per_op"),
            )
        )
    return found


HEADLINES: list[tuple[str, Headline]] = [
    *_pair("claim + complete vs the best queue peer", "claim_complete", BEST_QUEUE),
    *_pair("checkpoint save vs langgraph put", "checkpoint_save", "peer_langgraph_put"),
    ("agentddl latest-checkpoint read ÷ floor", _column("checkpoint_read", "ratio")),
    ("langgraph latest-checkpoint read ÷ floor", _column("peer_langgraph_read", "ratio")),
    *_pair(
        "latest-checkpoint read vs langgraph get_tuple", "checkpoint_read", "peer_langgraph_read", wal=False
    ),
]


def _headlines(repeats: list[dict[str, Any]]) -> list[Row]:
    every = [paths_of(r) for r in repeats]
    best = _best_queue(every)
    for paths in every:
        if best is not None:
            paths[BEST_QUEUE] = paths[best]
    found: list[Row] = [{"figure": title, "values": [pick(p) for p in every]} for title, pick in HEADLINES]
    for entry in found[:3]:
        entry["best_queue_peer"] = best
    return found


def _spread(values: list[float | None], digits: int) -> str:
    """One value; else the median and the range over the runs."""
    found = [v for v in values if v is not None]
    texts = {f"{v:,.{digits}f}" for v in found}
    if len(texts) <= 1:
        return texts.pop() if texts else "-"
    return f"{median(found):,.{digits}f} ({min(found):,.{digits}f}-{max(found):,.{digits}f})"


def _markdown(document: dict[str, Any]) -> str:
    facts = document["run"]
    peers = ", ".join(f"{p['package']} {p['version']}" for p in document["peers"].values())
    server = facts.get("server_version") or facts["postgres"]
    lines = [
        f"\n## agentddl and its peers: PostgreSQL {server}, {facts['clients']} clients, "
        f"{facts['duration_seconds']:g} s segments, {facts['history']:,} rows of agentddl history, "
        f"{facts['repeat']} run(s), {facts['date']}\n",
        f"Peers: {peers}. Durable: agentddl's database {facts['durable']}; the peers' "
        f"{'yes' if facts['peers_durable'] else 'NO'}."
        + (" Medians (min-max) over the runs." if facts["repeat"] > 1 else "")
        + "\n",
        "| who | path | " + " | ".join(title for _, title, _ in COLUMNS) + " |",
        "|---|---|" + "---:|" * len(COLUMNS),
    ]
    for row in document["table"]:
        cells = [_spread(row[column], digits) for column, _, digits in COLUMNS]
        lines.append(f"| {row['who']} | {row['what']} | " + " | ".join(cells) + " |")
    lines += ["", "| headline | value |", "|---|---:|"]
    for entry in document["headline"]:
        best = entry.get("best_queue_peer")
        note = f" ({best.removeprefix('peer_')})" if best else ""
        lines.append(f"| {entry['figure']}{note} | {_spread(entry['values'], 2)} |")
    return "\n".join(lines) + "\n"


def _write(path: Path, document: dict[str, Any]) -> None:
    """The JSON, atomically (a temp file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(document, indent=2, default=str), encoding="utf-8")
    temporary.replace(path)
    print(f"the run's JSON: {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
