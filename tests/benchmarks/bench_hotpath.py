"""Figures (not a test): `python tests/benchmarks/bench_hotpath.py [--pg-version 15]
[--clients 8] [--duration 10] [--history 10000,100000,1000000] [--repeat 2]`
(`make bench-hotpath`).

Runs `agentddl bench` (the library, the same code as the command) --repeat times, each
on a fresh durable embedded server (or --server's), and prints each run's markdown
report, then the figures issue 13 asks about with their range over the runs: claim +
complete against the two-commit floor, WAL and full-page images per cycle, a full step
per commit, checkpoint save, latest-checkpoint read, and per-operation CPU and latency
from the smallest history to the largest. The machine is shared: ratios measured in the
same run are what count, and the ranges say how much they moved.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

from agentddl.checks.bench import BenchOptions, BenchRequest, BenchResult, build_report, run
from agentddl.checks.cli.bench import parse_histories
from agentddl.checks.core.report import render
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import load_default_profile, load_profile
from agentddl.generator.profile.model import Engine

Pick = Callable[[dict[str, Any]], float | None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", type=Path, default=None, help="default: schemas/default.yaml")
    parser.add_argument(
        "--pg-version", type=int, default=15, help="the embedded server's major (and the profile's engine)"
    )
    parser.add_argument("--server", default=None, help="a server for scratch databases (default: embedded)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--history", default="10000,100000,1000000")
    parser.add_argument("--path", action="append", default=[], help="only this hot path (repeat)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("build/bench-hotpath.json"), help="every run's JSON")
    args = parser.parse_args(argv)
    try:
        return _bench(args)
    except AgentDDLError as error:
        print(f"bench_hotpath: {error}", file=sys.stderr)
        return 2


def _bench(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile) if args.profile else load_default_profile()
    if args.server is None and profile.engine.version != args.pg_version:
        profile = profile.model_copy(update={"engine": Engine(version=args.pg_version)})
    options = BenchOptions(args.clients, args.duration, parse_histories([args.history]), tuple(args.path))
    documents = []
    for number in range(1, args.repeat + 1):
        started = time.monotonic()
        request = BenchRequest(
            profile, options, server=args.server, pg_version=None if args.server else args.pg_version
        )
        result = run(request, progress=lambda line: print(f"  {line}", file=sys.stderr, flush=True))
        print(f"\n## run {number} of {args.repeat} ({time.monotonic() - started:.0f} s)\n")
        print(_markdown(result), flush=True)
        documents.append(result.to_json())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(documents, indent=2, default=str), encoding="utf-8")
    print(_ranges(documents, profile.name, args))
    return 0


def _markdown(result: BenchResult) -> str:
    out = io.StringIO()
    render(build_report(result), "markdown", out)
    return out.getvalue()


def _path(name: str, key: str) -> Pick:
    def pick(history: dict[str, Any]) -> float | None:
        found = next((p for p in history["paths"] if p["path"] == name), None)
        return found[key] if found else None

    return pick


def _floor(history: dict[str, Any]) -> float | None:
    rates = [s["ops_per_second"] for s in history["segments"] if s["workload"] == "floor"]
    return sum(rates) / len(rates) if rates else None


FIGURES: list[tuple[str, Pick]] = [
    ("floor: commits/s (mean of its measurements)", _floor),
    ("claim + complete ÷ two-commit floor", _path("claim_complete", "ratio_two_commit_floor")),
    ("claim + complete ÷ one-commit floor", _path("claim_complete", "ratio")),
    ("claim + complete CPU per commit ÷ floor's", _path("claim_complete", "cpu_per_commit_ratio")),
    ("WAL bytes per claim + complete", _path("claim_complete", "wal_bytes_per_op")),
    ("full-page images per claim + complete", _path("claim_complete", "wal_fpi_per_op")),
    ("full step ÷ floor, per commit", _path("step", "ratio_per_commit")),
    ("full step CPU per commit ÷ floor's", _path("step", "cpu_per_commit_ratio")),
    ("WAL bytes per full step", _path("step", "wal_bytes_per_op")),
    ("heartbeat ÷ floor", _path("heartbeat", "ratio")),
    ("WAL bytes per heartbeat", _path("heartbeat", "wal_bytes_per_op")),
    ("checkpoint save ÷ floor", _path("checkpoint_save", "ratio")),
    ("checkpoint save CPU ÷ floor's", _path("checkpoint_save", "cpu_per_commit_ratio")),
    ("latest-checkpoint read ÷ floor", _path("checkpoint_read", "ratio")),
    ("latest-checkpoint read CPU ÷ floor's", _path("checkpoint_read", "cpu_per_commit_ratio")),
    ("lease sweep poll ÷ floor", _path("sweep", "ratio")),
]
SCALED = ["claim_complete", "step", "heartbeat", "checkpoint_save", "checkpoint_read", "sweep"]


def _ranges(documents: list[dict[str, Any]], profile: str, args: argparse.Namespace) -> str:
    histories = [h["history"] for h in documents[0]["histories"]]
    lines = [
        f"\n## {len(documents)} runs: profile {profile}, PostgreSQL {documents[0]['run']['postgres']}, "
        f"{args.clients} clients, {args.duration:g} s segments (median, min-max)\n",
        "| figure | " + " | ".join(f"history {h:,}" for h in histories) + " |",
        "|---|" + "---|" * len(histories),
    ]
    for title, pick in FIGURES:
        cells = [_spread([pick(d["histories"][i]) for d in documents]) for i in range(len(histories))]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    for name in SCALED:
        for key, unit in (("cpu_ms_per_op", "CPU ms/op"), ("p50_ms", "p50 ms")):
            cells = [
                _spread([_path(name, key)(d["histories"][i]) for d in documents])
                for i in range(len(histories))
            ]
            if any(c != "-" for c in cells):
                lines.append(f"| {name} {unit} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _spread(values: list[float | None]) -> str:
    found = [v for v in values if v is not None]
    if not found:
        return "-"
    digits = 0 if median(found) >= 100 else 3 if median(found) < 1 else 2
    if len(found) == 1:
        return f"{found[0]:,.{digits}f}"
    return f"{median(found):,.{digits}f} ({min(found):,.{digits}f}-{max(found):,.{digits}f})"


if __name__ == "__main__":
    sys.exit(main())
