"""Profile-derived helpers every table builder uses: tenant keys, defaults, types."""

from __future__ import annotations

from dataclasses import dataclass

import agentddl.generator.model.distribution as distribution
import agentddl.generator.model.features as features
from agentddl.generator.model.layout import LAYOUT
from agentddl.generator.model.names import quote
from agentddl.generator.model.types import Check, Column, ForeignKey
from agentddl.generator.profile import Profile

RUN_STATUSES = ("queued", "running", "waiting", "succeeded", "failed", "cancelled")
TERMINAL_RUN_STATUSES = ("succeeded", "failed", "cancelled")
ATTEMPT_STATUSES = ("active", "succeeded", "failed", "interrupted", "expired")
OPERATION_STATUSES = ("pending", "succeeded", "failed")

# Status changes callers ask for with transition_run (version-checked).
TRANSITIONS: tuple[tuple[str, str], ...] = (
    ("queued", "waiting"),
    ("queued", "cancelled"),
    ("running", "waiting"),
    ("running", "cancelled"),
    ("waiting", "queued"),
    ("waiting", "cancelled"),
    ("waiting", "failed"),
)
# Status changes the fenced worker queries make (claim, attempt outcomes, lease expiry).
WORKER_TRANSITIONS: tuple[tuple[str, str], ...] = (
    ("queued", "running"),
    ("running", "queued"),
    ("running", "succeeded"),
    ("running", "failed"),
)


def size_check(table: str, column: str, limit: int, why: str) -> Check:
    """A JSON column's text stays within `limit` bytes."""
    return Check(f"{table}_{column}_size_check", f"octet_length({column}::text) <= {limit}", why)


def sql_list(values: tuple[str, ...]) -> str:
    """A literal list for IN (...): values are our own constants, never user input."""
    return ", ".join(f"'{v}'" for v in values)


@dataclass(frozen=True)
class Scope:
    profile: Profile
    layout: int = LAYOUT  # model/layout.py: an older one only to compute an upgrade from it

    @property
    def version(self) -> int:
        return self.profile.engine.version

    @property
    def tenant(self) -> str | None:
        return self.profile.tenancy.column

    @property
    def claims_within_tenant(self) -> bool:
        """With row-level security or Citus a worker claims within one tenant."""
        return distribution.claims_within_tenant(self.profile)

    @property
    def is_distributed(self) -> bool:
        return distribution.is_distributed(self.profile)

    def keyed(self, *columns: str) -> tuple[str, ...]:
        """Prefix a key with the tenant column: every key is tenant-scoped."""
        return (self.tenant, *columns) if self.tenant else columns

    def claim_keyed(self, *columns: str) -> tuple[str, ...]:
        """A claim index's columns, led by the tenant column when a worker claims within
        one tenant (claims_within_tenant)."""
        return (str(self.tenant), *columns) if self.claims_within_tenant else columns

    def run_fk(self, table: str, why: str, *, partitioned: bool = False) -> ForeignKey:
        """`table` -> runs through the tenant-scoped key; partitioned children also pin
        run_created_at to the run's created_at (so they land in the run's partition)."""
        own: tuple[str, ...] = ("run_id", "run_created_at") if partitioned else ("run_id",)
        ref: tuple[str, ...] = ("run_id", "created_at") if partitioned else ("run_id",)
        return ForeignKey(f"{table}_run_fkey", self.keyed(*own), "runs", self.keyed(*ref), "CASCADE", why)

    def tenant_columns(self) -> tuple[Column, ...]:
        if not self.tenant:
            return ()
        return (Column(self.tenant, self.profile.tenancy.type, comment="Owning tenant."),)

    @property
    def uuid_default(self) -> str:
        if features.has(self.version, "uuidv7"):
            return "uuidv7()"
        return f"{quote(self.profile.schema_name)}.uuid_v7()"  # created by blocks.uuid_v7

    @property
    def compression(self) -> str | None:
        method = self.profile.payload.compression
        return None if method == "none" else method

    def name(self, *parts: str) -> str:
        return "_".join(parts)
