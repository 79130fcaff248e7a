"""`agentddl prove --format json` as a typed model: docs/schemas/prove.schema.json is
generated from it (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.core.report.schema import Closed, Envelope, Open


class ProveRun(Closed):
    """What was proven, and the rate of the whole run."""

    profile: str = Field(description="The profile's name.")
    strategies: list[str] = Field(description="The lock strategies proven.")
    postgres: list[int] = Field(description="PostgreSQL majors proven on.")
    workers: int = Field(ge=2)
    runs: int = Field(ge=1, description="Runs each race starts.")
    existing: bool = Field(description="Proven in a database given with --dsn.")
    soak_minutes: float | SkipJsonSchema[None] = Field(None, description="With --soak.")
    runs_per_second: float = Field(description="Runs completed over the whole run's time.")


class ProveMinute(Open):
    """With --soak: one interval's figures and the server's sample at its end."""

    minute: int = Field(ge=1)
    seconds: float
    runs_completed: int = Field(ge=0)
    runs_per_second: float
    p50_ms: float
    p99_ms: float


class ProveScenario(Open):
    """One scenario of one strategy, with its counts (numbers or flags; those it guards
    must be zero)."""

    __pydantic_extra__: dict[str, int | float | bool] = Field(init=False)

    name: str
    strategy: str
    held: bool
    violations: list[str] = Field(description="What broke (empty: it held).")
    seconds: float
    minutes: list[ProveMinute] | SkipJsonSchema[None] = Field(None, description="With --soak: per interval.")


class ProveTotals(Closed):
    """Every scenario's counts added up."""

    duplicate_effects: int = Field(ge=0)
    lost_runs: int = Field(ge=0)
    stuck_runs: int = Field(ge=0)
    stale_writes_accepted: int = Field(ge=0)
    lost_outbox: int = Field(ge=0)
    duplicate_deliveries: int = Field(ge=0)
    runs_completed: int = Field(ge=0)
    seconds: float


class ProveOutput(ProveRun, Envelope):
    """`agentddl prove --format json`: each scenario's verdict and counts. The run's facts
    are at the top level and again under `run`."""

    run: ProveRun
    scenarios: list[ProveScenario]
    totals: ProveTotals
