"""What prove proves, where (`ProveRequest`), and how hard (`ProveOptions`: each
scenario's size follows from workers and runs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentddl.generator.profile import LockStrategy, Profile


@dataclass(frozen=True)
class ProveOptions:
    workers: int = 8  # worker processes
    runs: int = 2000  # queued runs the claim race drains; the other scenarios scale from it
    lease_seconds: int = 2  # short, so a killed worker's lease expires (by time) within seconds
    seed: int = 0  # crash points, inputs and orders are drawn from it
    scenarios: tuple[str, ...] = ()  # empty: all
    stall: float | None = None  # seconds without progress that mean stuck; None: from the lease
    soak_minutes: float | None = None  # set: only the soak, this long (checks/prove/soak.py)
    soak_interval_seconds: float = 60.0  # one row of the soak's report per interval (a minute)
    replication: str = "sync"  # the failover scenario's replica: "sync" or "async" (loses commits)

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


@dataclass(frozen=True)
class ProveRequest:
    """One prove run. Where: `dsn`, the database to prove in (the schema already there:
    prove writes only its own tagged runs and tenants, refuses a database with live work,
    and deletes what it wrote); else `server`, a server where a scratch database gets a
    fresh install of the profile's schema; else an embedded server (`pg_version`: its
    major; default: the profile's engine version when installed, else the newest)."""

    profile: Profile
    options: ProveOptions = field(default_factory=ProveOptions)
    dsn: str | None = None
    server: str | None = None
    pg_version: int | None = None
    strategies: tuple[LockStrategy, ...] = ()  # one schema variant each; none: the profile's own
    queries_text: str | None = None  # a queries.sql to run instead of the rendered one
    redis: str | None = None  # hot_state.store: redis: this Redis (redis://...); None: a throwaway one
    hot_state_text: str | None = None  # a redis/hot_state.py to run instead of the rendered one
    # the embedded server's settings over prove's (e.g. synchronous_commit=off: a weakened server)
    server_settings: tuple[tuple[str, str], ...] = ()
