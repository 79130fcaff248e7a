"""The soak's worker side (its coordinator, `checks/prove/soak.py`, declares the scenario:
the soak runs only when asked for, with `--soak MINUTES`, never among the others).

Each worker drains runs as the claim race's do (claim, one step, complete: every named
query of a run's path) for as long as the soak lasts, and times each run it completes,
from the `claim_run` call that returned it to the `COMMIT` of its completion. The times
go into the interval (minute) the completion fell in, returned at the end.
"""

from __future__ import annotations

import bisect
import time
from typing import Any

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.worker import WorkerContext

STEPS = 1  # the claim race's runs


def work_soak(w: WorkerContext, tenant: Any, epoch: float, boundaries: list[float]) -> dict[str, Any]:
    """Drain until the coordinator says stop. `epoch`: the soak's start (time.time());
    `boundaries`: each interval's end, in seconds after it. Returns, per interval, the
    claim-to-complete seconds of every run completed in it (the index after the last
    interval: runs completed while the queue drained after the soak), and the outcomes."""
    latencies: dict[int, list[float]] = {}
    outcomes: dict[str, int] = {"claims": 0, "empty_polls": 0}
    while not w.stop.is_set():
        polled = time.monotonic()
        claim = steps.claim_next(w, tenant)
        if claim is None:
            outcomes["empty_polls"] += 1
            steps.pause(w.rng.uniform(0.01, 0.04))
            continue
        outcomes["claims"] += 1
        outcome = steps.work_run(w, claim, STEPS)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "completed":
            interval = bisect.bisect_right(boundaries, time.time() - epoch)
            latencies.setdefault(interval, []).append(round(time.monotonic() - polled, 6))
    return {"latencies": latencies, "outcomes": outcomes}
