"""Plain, frozen data describing the schema. Renderers and checks read only this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import agentddl.generator.model.distribution as distribution
from agentddl.generator.profile import LockStrategy, Profile
from agentddl.generator.profile.model import ModelParts
from agentddl.generator.profile.periods import Period, PeriodName, period


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # SQL type as PostgreSQL prints it: uuid, bigint, text, timestamptz, jsonb, ...
    nullable: bool = False
    default: str | None = None  # SQL expression
    identity: bool = False  # GENERATED ALWAYS AS IDENTITY
    compression: str | None = None  # lz4 | pglz
    comment: str = ""


@dataclass(frozen=True)
class Check:
    name: str
    expression: str
    why: str  # the invariant it enforces


@dataclass(frozen=True)
class ForeignKey:
    name: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    on_delete: Literal["CASCADE", "RESTRICT", "NO ACTION", "SET NULL"] = "NO ACTION"
    why: str = ""


@dataclass(frozen=True)
class Unique:
    name: str
    columns: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Index:
    name: str
    table: str
    columns: tuple[str, ...]  # column names, optionally with " DESC", or "(expression)"
    serves: tuple[str, ...]  # access path names and/or constraint names this index serves
    why: str
    unique: bool = False
    where: str | None = None
    method: Literal["btree", "brin"] = "btree"
    nulls_not_distinct: bool = False

    @property
    def key_columns(self) -> tuple[str, ...]:
        """Plain column names of the key, in order (expressions and DESC stripped)."""
        return tuple(c.split()[0] for c in self.columns if not c.startswith("("))


@dataclass(frozen=True)
class Partitioning:
    column: str
    granularity: PeriodName
    retention_seconds: int
    runway: int  # future partitions kept created ahead of now
    why: str

    @property
    def period(self) -> Period:
        return period(self.granularity)


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    checks: tuple[Check, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    uniques: tuple[Unique, ...] = ()
    indexes: tuple[Index, ...] = ()
    partitioning: Partitioning | None = None
    storage: tuple[tuple[str, str], ...] = ()  # reloptions for hot-updated tables
    tenant_owned: bool = True
    append_only: bool = False

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    @property
    def pk_name(self) -> str:
        return f"{self.name}_pkey"


@dataclass(frozen=True)
class AccessPath:
    """A query the runtime runs; `queries.sql` holds it under the same name."""

    name: str
    table: str
    description: str
    kind: Literal["read", "write", "claim", "maintenance", "health"]
    index: str | None  # the index whose leading columns serve it (None: by primary key / none)


@dataclass(frozen=True)
class SqlBlock:
    """DDL the table model can't express (roles, grants, functions, policies)."""

    name: str
    sql: str
    why: str
    drop: str = ""  # how the downgrade removes it, when dropping the schema does not


@dataclass(frozen=True)
class SchemaModel:
    profile: Profile
    schema: str
    tables: tuple[Table, ...]
    access_paths: tuple[AccessPath, ...]
    before: tuple[SqlBlock, ...]  # roles, schema, helper functions: before tables
    after: tuple[SqlBlock, ...]  # triggers, grants, policies, partitions: after tables
    features: tuple[str, ...] = field(default=())  # version-gated features in use, for PLAN.md
    layout: int = 2  # model/layout.py's generation this model was derived in

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    @property
    def indexes(self) -> tuple[Index, ...]:
        return tuple(i for t in self.tables for i in t.indexes)

    # What the profile decided, as renderers read it: they never re-read the raw fields.
    @property
    def strategy(self) -> LockStrategy:
        """How workers claim runs (lock_strategy)."""
        return self.profile.lock_strategy

    @property
    def tenant(self) -> str | None:
        """The tenant column on every tenant-owned table; None: single-tenant."""
        return self.profile.tenancy.column

    @property
    def tenant_type(self) -> str:
        return self.profile.tenancy.type

    @property
    def row_level_security(self) -> bool:
        """Policies limit the app role to its session's tenant (needs a tenant column)."""
        return bool(self.tenant and self.profile.tenancy.row_level_security)

    @property
    def is_distributed(self) -> bool:
        """Tables distributed by the tenant with Citus: every query names its tenant and
        runs on one shard (model/distribution.py decides it, once)."""
        return distribution.is_distributed(self.profile)

    @property
    def claims_within_tenant(self) -> bool:
        """A worker claims one tenant's runs (row-level security or distributed tables)."""
        return distribution.claims_within_tenant(self.profile)

    @property
    def parts(self) -> ModelParts:
        """The runtime model's optional parts (nodes, approvals, sessions, notes, details)."""
        return self.profile.model

    @property
    def partitions_by_partman(self) -> bool:
        """pg_partman creates and drops the partitions (else the generated maintain_partitions)."""
        return self.profile.retention.partition_manager == "pg_partman"

    @property
    def hot_state_in_redis(self) -> bool:
        """Heartbeats and progress go to Redis; PostgreSQL keeps the durable lease."""
        return self.profile.hot_state.store == "redis"

    @property
    def shard_count(self) -> int:
        """Shards per distributed table (meaningful when is_distributed)."""
        return distribution.shard_count(self.profile)

    @property
    def shard_count_chosen(self) -> bool:
        """The profile set distribution.shard_count (else it comes from the volume)."""
        return self.profile.distribution.shard_count is not None

    @property
    def nodes_for_volume(self) -> int:
        """Citus worker nodes the volume calls for (the shard count's assumption)."""
        return distribution.nodes_for_volume(self.profile)

    @property
    def distributed_tables(self) -> tuple[Table, ...]:
        """Tables that carry the tenant column, in creation order (parents before
        children), except the tenants table itself: hash-distributed by the tenant column."""
        tenant = self.tenant
        carry = (t for t in self.tables if any(c.name == tenant for c in t.columns))
        return tuple(t for t in carry if t.name != "tenants")

    @property
    def reference_tables(self) -> tuple[Table, ...]:
        """Everything else (the tenants table, any table without the tenant column): a full
        copy on every node, so any shard can join it and reference it by foreign key."""
        distributed = {t.name for t in self.distributed_tables}
        return tuple(t for t in self.tables if t.name not in distributed)
