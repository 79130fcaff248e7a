"""How hard prove drives the schema; each scenario's size follows from workers and runs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProveOptions:
    workers: int = 8  # worker processes
    runs: int = 2000  # queued runs the claim race drains; the other scenarios scale from it
    lease_seconds: int = 2  # short, so a killed worker's lease expires (by time) within seconds
    seed: int = 0  # crash points, inputs and orders are drawn from it
    scenarios: tuple[str, ...] = ()  # empty: all
    stall: float | None = None  # seconds without progress that mean stuck; None: from the lease

    @property
    def crash_runs(self) -> int:
        return max(2 * self.workers, self.runs // 50)

    @property
    def crashes(self) -> int:
        return max(4, self.crash_runs // 2)  # at least one per crash point

    @property
    def stale_runs(self) -> int:
        return max(2, self.runs // 100)

    @property
    def idempotency_keys(self) -> int:
        return max(self.workers, self.runs // 20)

    @property
    def outbox_runs(self) -> int:
        return max(self.workers * 2, self.runs // 10)

    @property
    def version_runs(self) -> int:
        return max(self.workers, self.runs // 20)

    @property
    def stall_seconds(self) -> float:
        """Nothing moved for this long: what is left is stuck (a lease must have expired
        and been taken over well within it)."""
        return self.stall if self.stall is not None else max(6.0, 3.0 * self.lease_seconds + 3.0)
