"""`agentddl bench --format json` as a typed model: docs/schemas/bench.schema.json is
generated from it (`python -m agentddl.checks.docs`). Bench reports figures, never a
finding; the figures of a segment or a hot path may grow new keys (open objects)."""

from __future__ import annotations

from pydantic import Field

from agentddl.checks.bench.options import TenantChoice
from agentddl.checks.core.report.schema import Closed, Envelope, Open


class BenchFacts(Closed):
    """What was measured, where."""

    profile: str = Field(description="The profile's name.")
    server: str = Field(description="host:port/dbname measured on.")
    postgres: int = Field(description="PostgreSQL major of the server.")
    durable: str = Field(description='"yes", or "NO: " and why a commit there is not durable.')
    clients: int = Field(ge=1)
    duration_seconds: float = Field(description="How long each measured segment ran.")
    history: list[int | None] = Field(description="Rows of history per size measured (null: in place).")
    cpu: str = Field(description="Whose CPU the CPU figures count.")


class BenchRunOptions(Closed):
    """The options of the run."""

    clients: int = Field(ge=1)
    duration: float
    histories: list[int]
    paths: list[str]
    read_depth: int
    checkpoint: bool
    tenants: TenantChoice


class BenchRun(BenchFacts):
    """The run's facts, its time and its options."""

    seconds: float
    options: BenchRunOptions


class BenchSettings(Closed):
    """The server and the settings that decide what a commit costs."""

    version: int
    where: str
    embedded: bool = Field(description="Started by bench.")
    settings: dict[str, str] = Field(description="As the server reports them.")
    file_system: str | None = Field(description="Of the data directory, when local.")
    not_durable: list[str] = Field(description="Why a commit is not durable (empty: it is).")
    cpu_source: str
    checkpoint_each_segment: bool
    durable: bool


class BenchFigures(Open):
    """One measured segment of one workload (per operation: null when not measured)."""

    workload: str
    ops: int = Field(ge=0)
    ops_per_second: float
    p50_ms: float | None
    p99_ms: float | None
    wal_bytes_per_op: float | None
    wal_fpi_per_op: float | None
    wal_records_per_op: float | None
    cpu_ms_per_op: float | None
    server_cpu_ms_per_op: float | None
    client_cpu_ms_per_op: float | None
    empty_claims: int = Field(ge=0)
    errors: int = Field(ge=0)
    first_error: str | None
    wal_from: str | None
    wal_to: str | None
    runs_updates: int = Field(ge=0)
    runs_hot_share: float | None


class BenchPath(Open):
    """A hot path's figures (those of its segment, without `workload`) and its ratios to
    the floors measured right before and after it."""

    path: str
    title: str
    commits: int = Field(ge=1)
    floor_ops_per_second: float
    floor2_ops_per_second: float | None
    ratio: float = Field(description="Operations per second / the floor's commits per second.")
    ratio_per_commit: float
    ratio_two_commit_floor: float | None
    floor_cpu_ms_per_commit: float | None
    cpu_per_commit_ratio: float | None
    ops: int = Field(ge=0)
    ops_per_second: float


class BenchHistory(Closed):
    """One history size: every segment in order (the floors included), every hot path."""

    history: int | None = Field(description="Rows of history seeded (null: the database's own, in place).")
    rows: dict[str, int] = Field(description="Rows per table when measuring started.")
    seconds: float
    segments: list[BenchFigures]
    paths: list[BenchPath]


class BenchScaling(Closed):
    """A hot path's CPU and median latency per operation at each history size."""

    path: str
    title: str
    histories: list[int | None]
    cpu_ms_per_op: list[float | None]
    p50_ms: list[float | None]
    cpu_growth: float | None = Field(description="Largest history's / smallest's.")
    p50_growth: float | None


class BenchOutput(BenchFacts, Envelope):
    """`agentddl bench --format json`: the hot paths' cost as ratios to the durable-commit
    floor. The run's facts are at the top level and again under `run`."""

    run: BenchRun
    settings: BenchSettings
    histories: list[BenchHistory]
    scaling: list[BenchScaling]
