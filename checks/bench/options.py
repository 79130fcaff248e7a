"""What bench measures (`BenchOptions`) and where (`BenchRequest`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agentddl.generator.profile import Profile

# Whose runs the claims take: "own" tenants bench creates, the seeded history's "biggest"
# (a busy tenant's key range), or "auto": biggest on a seeded scratch database, own on a
# fresh install and in place (a user's database gets tenants of bench's own).
TenantChoice = Literal["auto", "own", "biggest"]


@dataclass(frozen=True)
class BenchOptions:
    clients: int = 8  # worker processes, one connection each
    duration: float = 10.0  # seconds each measured segment runs
    histories: tuple[int, ...] = (10_000,)  # rows of history (events) seeded before measuring
    paths: tuple[str, ...] = ()  # hot paths to measure; empty: every one the profile's queries have
    read_depth: int = 1000  # checkpoints of each run the latest-checkpoint read looks at
    checkpoint: bool = True  # CHECKPOINT before each segment (when allowed): comparable full-page images
    tenants: TenantChoice = "auto"


@dataclass(frozen=True)
class BenchRequest:
    """One bench run. Where: `dsn`, a database whose schema is measured in place (bench
    writes only its own tagged runs and tenants and a floor schema of its own, refuses a
    database with live work, and deletes what it wrote); else `server`, a server where
    each history size gets a scratch database with a fresh install; else an embedded
    server started with durable settings (`pg_version`: its major; default: the profile's
    engine version when installed, else the newest)."""

    profile: Profile
    options: BenchOptions = field(default_factory=BenchOptions)
    dsn: str | None = None
    server: str | None = None
    pg_version: int | None = None
    queries_text: str | None = None  # a queries.sql to measure instead of the rendered one
