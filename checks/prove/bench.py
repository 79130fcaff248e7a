"""Figures (not a test): `python -m agentddl.checks.prove.bench [--workers 8] [--runs 2000]`.

Proves the profile's schema once per lock strategy at full scale, on one pool of worker
processes (an embedded server, a scratch database per strategy; or --dsn's server), and
prints per strategy: the run time, the claim race's throughput, the totals, the verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.pool import Pool
from agentddl.checks.prove.result import TOTAL_KEYS, ProveReport
from agentddl.checks.prove.run import prove
from agentddl.generator.profile import LockStrategy, load_default_profile, load_profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--profile", type=Path, default=None, help="default: schemas/default.yaml")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--dsn", default=None, help="an empty database (default: embedded server)")
    args = parser.parse_args(argv)
    profile = load_profile(args.profile) if args.profile else load_default_profile()
    options = ProveOptions(workers=args.workers, runs=args.runs)
    pool = Pool(args.workers)
    reports = []
    try:
        for strategy in LockStrategy:
            reports.append(prove(profile, options=options, dsn=args.dsn, strategies=[strategy], pool=pool))
            print(_row(strategy.value, reports[-1]), flush=True)
    finally:
        pool.close()
    servers = ", ".join(str(v) for v in reports[0].run["postgres"])
    print(f"profile {profile.name}, {args.workers} workers, {args.runs} runs, PostgreSQL {servers}")
    return 0 if all(r.held for r in reports) else 1


def _row(strategy: str, report: ProveReport) -> str:
    totals = report.totals()
    race = next((s for s in report.scenarios if s.name == "claim_race"), None)
    throughput = race.counts.get("runs_per_second") if race else "-"
    verdict = "held 7/7" if report.held else f"BROKEN {sum(not s.held for s in report.scenarios)}/7"
    figures = " ".join(f"{k}={totals[k]}" for k in TOTAL_KEYS)
    return f"{strategy:<12} {totals['seconds']:>7.1f} s  claim race {throughput} runs/s  {figures}  {verdict}"


if __name__ == "__main__":
    sys.exit(main())
