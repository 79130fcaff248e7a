"""Shared pieces of queries.sql: one Query block, and the profile facts every query needs
(schema-qualified names, tenant predicates and keys)."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.generator.model import AccessPath, SchemaModel
from agentddl.generator.model.names import quote

# Citus refuses now() inside CASE or COALESCE, and a STABLE function beside column
# references, in an UPDATE of a distributed table ("non-IMMUTABLE functions are not allowed
# in CASE or COALESCE statements"; ADS105). There a statement reads the clock once in FROM
# and uses clock.at; a backoff that depends on the row is added in UTC timestamp arithmetic
# (IMMUTABLE): the same instants as now() + backoff. prove runs these forms on PostgreSQL.
CLOCK = "(SELECT now() AS at) AS clock"
CLOCK_AT = "clock.at"
CLOCK_NOTE = "Citus form: the clock is read once in FROM (clock.at), not in CASE."

# aiosql operation suffixes: "" many rows, "^" one row, "$" one value, "!" row count,
# "<!" one row from INSERT/UPDATE ... RETURNING.
Suffix = str


@dataclass(frozen=True)
class Query:
    name: str
    suffix: Suffix
    doc: tuple[str, ...]  # what it does, which index serves it, what it returns
    sql: str  # one statement, without the trailing semicolon
    params: tuple[str, ...] = ()  # "name type (note)", in the order callers think of them

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.split()[0] for p in self.params)


@dataclass(frozen=True)
class Ctx:
    """What a query builder reads from the model; nothing from input is pasted as SQL
    text except validated identifiers (schema, tenant column) and our own constants."""

    model: SchemaModel

    @property
    def tenant(self) -> str | None:
        return self.model.tenant

    @property
    def tenant_type(self) -> str:
        return self.model.tenant_type

    @property
    def distributed(self) -> bool:
        """Tables distributed by the tenant (SchemaModel.is_distributed): every query must
        name its tenant so that it runs on one shard."""
        return self.model.is_distributed

    @property
    def claim_is_tenant_scoped(self) -> bool:
        return self.model.claims_within_tenant

    def shard_filter(self, alias: str) -> list[str]:
        """[alias.tenant = :tenant] when tables are distributed, else nothing: the
        global worker/operator paths become one tenant's (a router query)."""
        return self.tenant_filter(alias) if self.distributed else []

    def shard_param(self) -> list[str]:
        return self.tenant_param() if self.distributed else []

    @property
    def now(self) -> str:
        """The statement's time where Citus refuses now() (a CASE branch): clock.at there."""
        return CLOCK_AT if self.distributed else "now()"

    def clock(self, lead: str = ", ") -> str:
        """The FROM item that reads the clock once, after `lead`, on Citus; else nothing."""
        return f"{lead}{CLOCK}" if self.distributed else ""

    def later(self, delay: str) -> str:
        """now() + `delay` (an interval that depends on the row); on Citus the same instant
        from clock.at in UTC timestamp arithmetic."""
        if not self.distributed:
            return f"now() + {delay}"
        return f"(({CLOCK_AT} AT TIME ZONE 'UTC') + {delay}) AT TIME ZONE 'UTC'"

    def clocked(self, *doc: str) -> tuple[str, ...]:
        """A doc that says so, before its returns line, when the query reads clock.at."""
        return (*doc[:-1], CLOCK_NOTE, doc[-1]) if self.distributed else doc

    def t(self, table: str) -> str:
        """A schema-qualified table name."""
        return f"{quote(self.model.schema)}.{table}"

    def path(self, name: str) -> AccessPath:
        return next(p for p in self.model.access_paths if p.name == name)

    def keyed(self, *columns: str) -> tuple[str, ...]:
        return (self.tenant, *columns) if self.tenant else columns

    def cols(self, alias: str, *columns: str) -> str:
        """alias.col, ... for the tenant column (if any) and the given columns."""
        return ", ".join(f"{alias}.{c}" for c in self.keyed(*columns))

    def names(self, *columns: str) -> str:
        return ", ".join(self.keyed(*columns))

    def join(self, left: str, right: str, *columns: str) -> str:
        """left.c = right.c AND ... over the tenant-scoped key."""
        return " AND ".join(f"{left}.{c} = {right}.{c}" for c in self.keyed(*columns))

    def match(self, alias: str, *columns: str) -> str:
        """alias.c = :c AND ... : a row by its tenant-scoped key from parameters."""
        return " AND ".join(f"{alias}.{c} = :{c}" for c in self.keyed(*columns))

    def tenant_filter(self, alias: str) -> list[str]:
        """[alias.tenant = :tenant] with tenancy on, else nothing."""
        return [f"{alias}.{self.tenant} = :{self.tenant}"] if self.tenant else []

    def tenant_param(self) -> list[str]:
        return [f"{self.tenant} {self.tenant_type}"] if self.tenant else []


def where(*predicates: str, pad: int = 0) -> str:
    """A WHERE clause, one predicate per line; pad: the indent of the WHERE itself."""
    present = [p for p in predicates if p]
    return "WHERE " + f"\n{' ' * (pad + 4)}AND ".join(present)


def returning(*columns: str) -> str:
    return "RETURNING " + ", ".join(columns)


def seconds(value: int) -> str:
    """An interval literal from a number of seconds the profile fixed."""
    return f"interval '{int(value)} seconds'"


# A retry waits backoff_seconds x 2^(attempt - 1), doubling at most BACKOFF_CAP times.
BACKOFF_CAP = 10


def backoff_sql(base: str, attempt: str) -> str:
    """The retry delay as the queries compute it (a number of seconds)."""
    return f"{base} * power(2, least({attempt} - 1, {BACKOFF_CAP}))"


def backoff_wait(base: float, attempt: int) -> float:
    """backoff_sql in Python, the same cap: what a caller (prove's observers) expects the
    server to have set after `attempt` tries."""
    return base * 2.0 ** min(max(attempt - 1, 0), BACKOFF_CAP)


LEASE_HASH = "sha256(convert_to(CAST(:lease_token AS text), 'UTF8'))"
LEASE_END = "now() + CAST(:lease_seconds AS integer) * interval '1 second'"
