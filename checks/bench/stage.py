"""The coordinator's own SQL on a benched database: the floor's tables, bench's tenants,
the queued runs the claims take, and removing all of it afterwards.

Clients only ever run the named queries (and the floor's two statements). What a
runtime never does — making a few thousand queued runs in one statement, creating the
floor's table pair — is done here, as the connecting user and the schema's owner role.
Everything bench writes is marked: runs have kind BENCH_KIND, tenants are named
BENCH_TENANT_PREFIX..., the floor lives in a schema of its own. On a seeded scratch
database the runs go to the history's biggest tenants instead (a busy tenant's keys, not
a fresh tenant's short key range, are what index maintenance meets in production).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.db.connect import error_line
from agentddl.checks.db.tenants import create_tenants
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

BENCH_KIND = "agentddl.bench"
BENCH_TENANT_PREFIX = "agentddl-bench "
TENANTS = 4
TENANT_ARRAY = {"uuid": "uuid[]", "bigint": "bigint[]", "text": "text[]"}
LIVE_ROWS = (
    ("runs", "status IN ('queued', 'running', 'waiting')", "live runs"),
    ("run_queue", "true", "live rows"),
    ("attempts", "status = 'active'", "active attempts"),
)


class Stage:
    def __init__(self, conn: psycopg.Connection[Any], model: SchemaModel, clients: int) -> None:
        self.conn, self.model, self.clients = conn, model, clients
        self.profile = model.profile
        self.floor_schema = f"agentddl_bench_{secrets.token_hex(4)}"
        self.tenants: list[Any] = [None]
        self.can_checkpoint = True

    def table(self, name: str) -> sql.Identifier:
        return sql.Identifier(self.model.schema, name)

    def set_up(self, own_tenants: bool) -> None:
        """The floor's tables; the tenants clients work for: bench's own (in place, or on a
        fresh install), else the seeded history's biggest, whose keys spread over the
        indexes as a busy tenant's do; whether CHECKPOINT is allowed."""
        self._floor_tables()
        self.tenants = (None if own_tenants else self._biggest_tenants()) or self._create_tenants()
        self.can_checkpoint = self._try_checkpoint()

    def _floor_tables(self) -> None:
        """The floor: a row per client updated by key (HOT: no indexed column changes),
        and a log with a sequential key each commit inserts into."""
        schema, app = sql.Identifier(self.floor_schema), sql.Identifier(self.profile.role("app"))
        for statement in (
            "CREATE SCHEMA {s}",
            "CREATE TABLE {s}.floor_row (id integer PRIMARY KEY, n bigint NOT NULL, touched_at timestamptz)",
            "CREATE TABLE {s}.floor_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            " client integer NOT NULL, at timestamptz NOT NULL DEFAULT now(), note text)",
            "GRANT USAGE ON SCHEMA {s} TO {app}",
            "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA {s} TO {app}",
            "GRANT USAGE ON ALL SEQUENCES IN SCHEMA {s} TO {app}",
        ):
            self.conn.execute(sql.SQL(statement).format(s=schema, app=app))
        self.conn.execute(
            sql.SQL("INSERT INTO {}.floor_row SELECT g, 0, now() FROM generate_series(0, %s) AS g").format(
                schema
            ),
            [self.clients - 1],
        )

    @contextlib.contextmanager
    def _owner(self) -> Iterator[None]:
        """The block as the schema's owner role (its grants cover every table; row-level
        security lets it see every tenant), whoever connected."""
        owner = self.profile.role("owner")
        try:
            self.conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(owner)))
        except psycopg.Error as error:
            raise AgentDDLError(
                f"bench writes its runs as the schema's owner role and cannot SET ROLE {owner}: "
                f"{error_line(error)} (connect as a member of the schema's roles)"
            ) from error
        try:
            yield
        finally:
            self.conn.execute("RESET ROLE")

    def _biggest_tenants(self) -> list[Any] | None:
        column = self.profile.tenancy.column
        if not column:
            return None
        with self._owner():
            rows = self.conn.execute(
                sql.SQL("SELECT {c} FROM {t} GROUP BY {c} ORDER BY count(*) DESC, {c} LIMIT %s").format(
                    c=sql.Identifier(column), t=self.table("runs")
                ),
                [min(TENANTS, self.clients)],
            ).fetchall()
        return [row[0] for row in rows] or None

    def _create_tenants(self) -> list[Any]:
        count = min(TENANTS, self.clients)
        with self._owner():
            table = self.table("tenants")
            return create_tenants(self.conn, self.profile, table, count, "bench", BENCH_TENANT_PREFIX)

    def _try_checkpoint(self) -> bool:
        """Whether this session may run CHECKPOINT (superuser; pg_checkpoint from 15)."""
        try:
            self.checkpoint()
        except psycopg.errors.InsufficientPrivilege:
            return False
        return True

    def checkpoint(self) -> None:
        self.conn.execute("CHECKPOINT")

    def queued(self) -> int:
        with self._owner():
            row = self.conn.execute(
                sql.SQL("SELECT count(*) FROM {} WHERE kind = %s AND status = 'queued'").format(
                    self.table("runs")
                ),
                [BENCH_KIND],
            ).fetchone()
        return int(row[0]) if row else 0

    def enqueue(self, wanted: int) -> int:
        """Queued runs (spread over bench's tenants) until `wanted` are waiting; returns
        how many were added. One statement: set-up, not the workload."""
        missing = wanted - self.queued()
        if missing <= 0:
            return 0
        column = self.profile.tenancy.column
        names = [sql.Identifier(c) for c in ((column,) if column else ())] + [
            sql.Identifier("kind"),
            sql.Identifier("input"),
        ]
        tenant = (
            [
                sql.SQL("(%(tenants)s::{})[1 + g %% %(spread)s]").format(
                    sql.SQL(TENANT_ARRAY[self.profile.tenancy.type])
                )
            ]
            if column
            else []
        )
        keys = [sql.Identifier(c) for c in ((column,) if column else ())] + [sql.Identifier("run_id")]
        # each run enters the live set (run_queue) with it, as start_run does
        insert = sql.SQL(
            "WITH started AS (INSERT INTO {} ({}) SELECT {} FROM generate_series(0, %(count)s - 1) AS g"
            " RETURNING {}, created_at, priority, wake_at, max_attempts)"
            " INSERT INTO {} ({}, run_created_at, priority, visible_at, max_attempts)"
            " SELECT {}, created_at, priority, wake_at, max_attempts FROM started"
        ).format(
            self.table("runs"),
            sql.SQL(", ").join(names),
            sql.SQL(", ").join([*tenant, sql.SQL("%(kind)s, '{}'::jsonb")]),
            sql.SQL(", ").join(keys),
            self.table("run_queue"),
            sql.SQL(", ").join(keys),
            sql.SQL(", ").join(keys),
        )
        params = {"tenants": self.tenants, "spread": len(self.tenants), "count": missing, "kind": BENCH_KIND}
        with self._owner():
            self.conn.execute(insert, params)
        return missing

    def refuse_live(self) -> None:
        """In place: the claims take any due queued run, so a database with live work is
        refused (a copy of production with its workers stopped is the place for bench)."""
        for table, condition, name in LIVE_ROWS:
            with self._owner():
                row = self.conn.execute(
                    sql.SQL("SELECT count(*) FROM {} WHERE {}").format(self.table(table), sql.SQL(condition))
                ).fetchone()
            if row and row[0]:
                raise AgentDDLError(
                    f"{row[0]} {name} in {self.model.schema}.{table}: bench's clients would claim or "
                    "renew them; stop your workers and drain first, or bench a copy"
                )

    def clean_up(self) -> None:
        """Remove what bench wrote: its runs (with their attempts, checkpoints and events,
        by the FK cascade), its tenants and the floor's schema."""
        with self._owner():
            self.conn.execute(
                sql.SQL("DELETE FROM {} WHERE kind = %s").format(self.table("runs")), [BENCH_KIND]
            )
            if self.profile.tenancy.column:
                self.conn.execute(
                    sql.SQL("DELETE FROM {} WHERE name LIKE %s").format(self.table("tenants")),
                    [BENCH_TENANT_PREFIX + "%"],
                )
        self.conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self.floor_schema))
        )
