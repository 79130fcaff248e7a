"""Figures (not a test): `python tests/benchmarks/prove_bench.py [--workers 8] [--runs 2000]`
(`make bench-prove`).

Proves the profile's schema once per lock strategy at full scale, on one pool of worker
processes (an embedded server, a scratch database per strategy; or --server's server),
and prints per strategy: the run time, the claim race's throughput, the totals, the
verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentddl.checks.prove import SCENARIOS, Pool, ProveOptions, ProveRequest, ProveResult, run
from agentddl.checks.prove.result import TOTAL_KEYS
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import LockStrategy, load_default_profile, load_profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", type=Path, default=None, help="default: schemas/default.yaml")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--server", default=None, help="a server for scratch databases (default: embedded)")
    args = parser.parse_args(argv)
    try:
        return _bench(args)
    except AgentDDLError as error:
        print(f"prove_bench: {error}", file=sys.stderr)
        return 2


def _bench(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile) if args.profile else load_default_profile()
    options = ProveOptions(workers=args.workers, runs=args.runs)
    pool = Pool(args.workers)
    results: list[ProveResult] = []
    try:
        for strategy in LockStrategy:
            request = ProveRequest(profile, options, server=args.server, strategies=(strategy,))
            results.append(run(request, pool=pool))
            print(_row(strategy.value, results[-1]), flush=True)
    finally:
        pool.close()
    servers = ", ".join(str(v) for v in results[0].run["postgres"])
    print(f"profile {profile.name}, {args.workers} workers, {args.runs} runs, PostgreSQL {servers}")
    return 0 if all(r.held for r in results) else 1


def _row(strategy: str, result: ProveResult) -> str:
    totals = result.totals()
    race = next((s for s in result.scenarios if s.name == "claim_race"), None)
    throughput = race.counts.get("runs_per_second") if race else "-"
    total = len(SCENARIOS)
    verdict = f"held {total}/{total}" if result.held else f"BROKEN {len(result.broken)}/{total}"
    figures = " ".join(f"{k}={totals[k]}" for k in TOTAL_KEYS)
    return f"{strategy:<12} {totals['seconds']:>7.1f} s  claim race {throughput} runs/s  {figures}  {verdict}"


if __name__ == "__main__":
    sys.exit(main())
