"""Soak (`agentddl prove --soak MINUTES`): the claim race's workload held for minutes,
to show the schema keeps its pace and its size under sustained load.

A feeder keeps the queue `--runs` deep (every TOP_UP_SECONDS it starts what the workers
took since), the workers drain it as the claim race's do (claim, one step, complete),
and at the end of each interval (a minute) the feeder reads from the server each hot
table's size, its indexes' sizes, its dead tuples and its autovacuum runs. After the
soak the feeder stops and the workers drain what is left. The live table (run_queue) is
rewritten by every query of a run's path and each row deleted at completion: with its
generated autovacuum settings it must stay the size it had after the first minute.

Judged on the rows (`soak_stats.judge`): the last interval's throughput and p99 within
1.2x the second's (the first warms up), the live table after the soak within 2x its
size after the first, its indexes within 2x theirs after the second (a B-tree reaches
its steady size once autovacuum has run); every run started succeeded, no query raised.
The soak runs only when asked for, never among the other scenarios; its workers' side
is `scenarios/soak.py`.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from psycopg import sql

from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.pool import Dispatch, Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import Background, ScenarioContext
from agentddl.checks.prove.soak_stats import GROWTH, LIVE_TABLE, WORSE, interval_rows, judge, sample
from agentddl.generator.errors import AgentDDLError

NAME = "soak"
LEASE_SECONDS = 120  # the claim race's: no lease lapses, a run's time is its own work's
TOP_UP_SECONDS = 0.2  # how often the feeder fills the queue back to its depth
MIN_INTERVALS = 3  # the first warms up, the second is the baseline, the last is judged
DRAIN_SECONDS = 120.0  # after the soak: the queue left is drained well within this

SCENARIO = Scenario(
    NAME,
    order=50,
    guarded={
        "throughput_degraded": f"the last minute's runs/s below the second's / {WORSE}",
        "p99_degraded": f"the last minute's p99 claim-to-complete above {WORSE} x the second's",
        "live_table_grew": f"{LIVE_TABLE} after the soak larger than {GROWTH:g} x after the first minute",
        "live_indexes_grew": f"{LIVE_TABLE}'s indexes after the soak larger than {GROWTH:g} x "
        "after the second minute",
        "intervals_missing": "minutes the soak did not reach (stopped early: nothing moved)",
        "lost_runs": "runs started that had not succeeded once the queue drained",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def boundaries(options: ProveOptions) -> list[float]:
    """Each interval's end, in seconds from the soak's start (the last may be shorter)."""
    total = (options.soak_minutes or 0.0) * 60.0
    interval = options.soak_interval_seconds
    count = math.ceil(total / interval - 1e-9) if interval > 0 else 0
    return [min(interval * (n + 1), total) for n in range(count)]


def validate_soak(options: ProveOptions) -> None:
    """A soak too short to judge, or combined with --scenario, is a usage error."""
    minutes = options.soak_minutes
    if minutes is None:
        return
    if options.scenarios:
        raise AgentDDLError("--soak runs the soak alone: not with --scenario")
    if minutes <= 0 or options.soak_interval_seconds <= 0:
        raise AgentDDLError(f"--soak {minutes:g}: the minutes must be more than 0")
    if len(boundaries(options)) < MIN_INTERVALS:
        raise AgentDDLError(
            f"--soak {minutes:g}: at least {MIN_INTERVALS} intervals of "
            f"{options.soak_interval_seconds:g} s (the first warms up, the second is the "
            "baseline the last is judged against)"
        )


def run(ctx: ScenarioContext) -> ScenarioResult:
    bounds = boundaries(ctx.options)
    feeder = Feeder(ctx, ctx.options.runs, bounds)
    feeder.top_up()  # the queue is full before the workers start
    epoch = time.time()
    feeder.start()
    tasks = {
        s: ctx.task("soak", lease=LEASE_SECONDS, tenant=ctx.tenant_of_slot(s), epoch=epoch, boundaries=bounds)
        for s in ctx.slots
    }
    try:
        dispatch = ctx.dispatch(tasks, feeder.watch(ctx.options.stall_seconds))
    finally:
        feeder.stop()
    rows = interval_rows(
        bounds[: len(feeder.samples)], _latencies(dispatch, len(feeder.samples)), feeder.samples
    )
    counts = _counts(ctx, feeder, dispatch, rows)
    result = ctx.result(counts, SCENARIO.guarded, dispatch)
    result.series = rows
    return result


class Feeder(Background):
    """Keeps the queue `depth` runs deep until the last boundary, samples the server at
    each one, then waits for the workers to drain what is left (`done`)."""

    def __init__(self, ctx: ScenarioContext, depth: int, bounds: list[float]) -> None:
        super().__init__()
        self.ctx, self.depth, self.bounds = ctx, depth, bounds
        self.observer = Observer(ctx.observer.dsn, ctx.model)  # its own session: the watch polls meanwhile
        self.started, self.live = 0, 0
        self.samples: list[dict[str, Any]] = []
        self._count = sql.SQL(
            "SELECT count(*) FILTER (WHERE state = 'queued') AS queued, count(*) AS live FROM {}"
        ).format(self.observer.table(LIVE_TABLE))

    def start(self) -> None:
        self._began = time.monotonic()
        super().start()

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            self.observer.close()

    def top_up(self) -> None:
        """Start as many runs as the queue is short of `depth`."""
        found = self.observer.one(self._count)
        self.live = int(found["live"])
        missing = self.depth - int(found["queued"])
        if missing > 0:
            rng, tenants = self.ctx.rng, self.ctx.tenants
            self.observer.start_runs(NAME, ((rng.choice(tenants), {}) for _ in range(missing)))
            self.started += missing

    def loop(self) -> None:
        for end in self.bounds:
            while (left := self._began + end - time.monotonic()) > 0:
                self.top_up()
                if self.halt.wait(min(TOP_UP_SECONDS, left)):
                    return
            self.samples.append(sample(self.observer.conn, self.ctx.model.schema))
        while not self.halt.is_set():
            self.live = int(self.observer.one(self._count)["live"])
            if self.live == 0:
                return
            self.halt.wait(0.25)

    def watch(self, stall_seconds: float) -> Watch:
        """Over once the feeder is done (the queue drained after the soak); stuck when
        neither new runs nor the live count move for `stall_seconds`."""
        return Watch(
            finished=self.done.is_set,
            progress=lambda: (self.started, self.live),
            stall_seconds=stall_seconds,
            timeout=self.bounds[-1] + DRAIN_SECONDS + self.depth * 0.5,
        )


def _latencies(dispatch: Dispatch, intervals: int) -> list[list[float]]:
    """Every worker's claim-to-complete seconds, merged per interval."""
    merged: dict[int, list[float]] = defaultdict(list)
    for result in dispatch.all_results():
        for interval, seconds in result["latencies"].items():
            merged[int(interval)].extend(seconds)
    return [merged[n] for n in range(intervals)]


def _counts(
    ctx: ScenarioContext, feeder: Feeder, dispatch: Dispatch, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    succeeded = _succeeded(ctx.observer)
    in_rows = sum(row["runs_completed"] for row in rows)
    seconds = feeder.bounds[len(rows) - 1] if rows else 0.0
    counts: dict[str, Any] = {
        "runs": feeder.started,
        "runs_completed": succeeded,
        "queue_depth": feeder.depth,
        "minutes": len(rows),
        "runs_per_second": round(in_rows / seconds, 1) if seconds else 0.0,
        "drained_after": succeeded - in_rows,
    }
    counts |= judge(rows) if len(rows) >= MIN_INTERVALS else {}
    counts["intervals_missing"] = len(feeder.bounds) - len(rows)
    counts["lost_runs"] = feeder.started - succeeded
    counts["errors"] = journal_errors(ctx.journal_dir)
    return counts


def _succeeded(observer: Observer) -> int:
    """The soak's runs that succeeded (counted in the server: a soak starts many)."""
    found = observer.one(
        sql.SQL("SELECT count(*) AS n FROM {} AS r WHERE {} AND r.status = 'succeeded'").format(
            observer.table("runs"), observer.scenario_runs(NAME)
        )
    )
    return int(found["n"])


def journal_errors(directory: str) -> int:
    """The soak's `error` lines in the workers' journals, counted without parsing the
    rest (a soak journals every claim, step and completion: millions of lines)."""
    wanted = b'{"kind": "error", "scenario": "' + NAME.encode() + b'"'
    return sum(path.read_bytes().count(wanted) for path in Path(directory).glob("*.jsonl"))
