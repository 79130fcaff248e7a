"""The coordinator's own connection: set-up, observation and clean-up in raw SQL.

Workers only ever run the named queries. The coordinator uses SQL for what a runtime
never does: inserting the runs a scenario drives, counting what happened (attempts that
overlapped, rows per table) and retiring what a broken scenario left behind. Everything
prove writes is marked: runs have kind PROVE_KIND, tenants are named PROVE_TENANT_PREFIX...,
so `cleanup` removes exactly that and nothing of anyone else's.

The session works as the schema's owner role (its grants cover every table, and row-level
security lets it see every tenant), whoever connected; `as_role` switches for a block.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from agentddl.checks.db.connect import DatabaseError, error_line
from agentddl.checks.db.runtime import TENANT_SETTING, Role
from agentddl.checks.db.tenants import create_tenants
from agentddl.checks.prove.sessions import RECONNECT_SECONDS, open_session, open_when_up
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

Row = dict[str, Any]
PROVE_KIND = "agentddl.prove"
PROVE_TENANT_PREFIX = "agentddl-prove "
TERMINAL = ("succeeded", "failed", "cancelled")
CHILD_TABLES = ("attempts", "checkpoints", "events", "operations", "outbox")
ATTEMPTS = 1000  # max_attempts of prove's runs


class Observer:
    def __init__(self, dsn: str, model: SchemaModel) -> None:
        self.dsn = dsn
        self.model = model
        self.profile = model.profile
        self.tenant_column = model.profile.tenancy.column
        self.conn: psycopg.Connection[Row] = open_session(dsn, "coordinator", row_factory=dict_row)
        self._home = sql.SQL("SET ROLE {}").format(sql.Identifier(self.profile.role("owner")))
        self.check_roles()

    def close(self) -> None:
        self.conn.close()

    def reconnect(self, wait: float = RECONNECT_SECONDS) -> bool:
        """A new session if the server dropped this one (a crash, a restart); tries for up
        to `wait` seconds while the server is down or still recovering. True: connected."""
        if self.conn.closed or self.conn.broken:
            try:
                self.conn = open_when_up(self.dsn, "coordinator", wait, row_factory=dict_row)
            except DatabaseError:
                return False
        return True

    def table(self, name: str) -> sql.Identifier:
        return sql.Identifier(self.model.schema, name)

    def rows(
        self, statement: sql.Composed | sql.SQL, params: Sequence[Any] | dict[str, Any] = ()
    ) -> list[Row]:
        cursor = self.conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []

    def one(self, statement: sql.Composed | sql.SQL, params: Sequence[Any] | dict[str, Any] = ()) -> Row:
        return self.rows(statement, params)[0]

    @contextmanager
    def as_role(self, kind: Role, tenant: Any | None = None) -> Iterator[None]:
        """Run the block as one of the schema's roles (grants and RLS apply), with `tenant`
        (when given) as the session's tenant for the block."""
        self.conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.profile.role(kind))))
        if tenant is not None:
            self.set_tenant(tenant)
        try:
            yield
        finally:
            if tenant is not None:
                self.set_tenant(None)
            self.conn.execute(self._home)

    def set_tenant(self, tenant: Any | None) -> None:
        """The session's tenant, as the row-level security policies read it (None: none)."""
        value = "" if tenant is None else str(tenant)
        self.conn.execute("SELECT set_config(%s, %s, false)", [TENANT_SETTING, value])

    def check_roles(self) -> None:
        """Every query runs as its production role: the session must be able to SET ROLE
        to each (a superuser, or a member of the four roles)."""
        for kind in ("app", "relay", "readonly", "owner"):  # the owner last: the session stays it
            try:
                with self.as_role(kind):
                    pass
            except psycopg.Error as error:
                self.conn.close()
                raise AgentDDLError(
                    f"prove runs each query as its production role, and cannot SET ROLE "
                    f"{self.profile.role(kind)}: {error_line(error)} "
                    "(connect as a member of the schema's roles)"
                ) from error

    def refuse_live(self, what: tuple[tuple[str, str, str], ...]) -> None:
        """Refuse a database where prove's workers would touch someone's live rows."""
        for table, condition, name in what:
            found = self.one(
                sql.SQL("SELECT count(*) AS n FROM {} WHERE {}").format(self.table(table), sql.SQL(condition))
            )
            if found["n"]:
                raise AgentDDLError(
                    f"{found['n']} {name} in {self.model.schema}.{table}: prove's workers would claim or "
                    "relay them; stop your workers and relay and drain first, or prove a copy"
                )

    def create_tenants(self, count: int) -> list[Any]:
        """`count` new tenants (or [None]: a single-tenant schema has no tenant to make)."""
        table = self.table("tenants")
        return create_tenants(self.conn, self.profile, table, count, "prove", PROVE_TENANT_PREFIX)

    def start_runs(self, scenario: str, plans: Iterable[tuple[Any, dict[str, Any]]]) -> list[Row]:
        """Insert one queued run per (tenant, input) (set-up, not the runtime: one statement
        a batch), each marked with the scenario; returns their keys in order. The attempt
        budget is large: a lease a slow machine lets lapse now and then is a takeover to
        prove, not a run to fail once the profile's max_attempts are spent."""
        columns = [sql.Identifier(c) for c in ([self.tenant_column] if self.tenant_column else [])]
        columns += [sql.Identifier(c) for c in ("kind", "run_key", "input", "max_attempts")]
        run_key = self._run_key()
        # each run enters the live set (run_queue) with it, as start_run does
        insert = sql.SQL(
            "WITH started AS (INSERT INTO {} ({}) VALUES ({}) RETURNING *),"
            " queued AS (INSERT INTO {} ({}, run_created_at, priority, visible_at, max_attempts)"
            " SELECT {}, created_at, priority, wake_at, max_attempts FROM started)"
            " SELECT * FROM started"
        ).format(
            self.table("runs"),
            sql.SQL(", ").join(columns),
            sql.SQL(", ").join(sql.Placeholder() * len(columns)),
            self.table("run_queue"),
            run_key,
            run_key,
        )
        rows = []
        for n, (tenant, plan) in enumerate(plans):
            body = json.dumps({"scenario": scenario, "n": n, **plan})
            key = (tenant,) if self.tenant_column else ()
            rows.append((*key, PROVE_KIND, f"{scenario}-{n}-{uuid.uuid4().hex[:8]}", body, ATTEMPTS))
        with self.conn.cursor() as cursor:
            cursor.executemany(insert, rows, returning=True)
            found = []
            while True:
                found.extend(cursor.fetchall())
                if not cursor.nextset():
                    return found

    def enqueue(self, scenario: str, messages: list[tuple[Row, str, int]]) -> None:
        """Outbox messages (set-up, not the runtime): one per (run, topic, max_attempts),
        the run one of `start_runs`' rows."""
        key = [self.tenant_column] if self.tenant_column else []
        columns = [*key, "run_id", "topic", "payload", "max_attempts"]
        insert = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
            self.table("outbox"),
            sql.SQL(", ").join(sql.Identifier(c) for c in columns),
            sql.SQL(", ").join(sql.Placeholder() * len(columns)),
        )
        rows = [
            (*(run[c] for c in key), run["run_id"], topic, json.dumps({"scenario": scenario}), limit)
            for run, topic, limit in messages
        ]
        with self.conn.cursor() as cursor:
            cursor.executemany(insert, rows)

    def scenario_runs(self, scenario: str) -> sql.Composable:
        """A WHERE condition on runs (alias r) selecting the scenario's runs."""
        return sql.SQL("r.kind = {} AND r.input->>'scenario' = {}").format(
            sql.Literal(PROVE_KIND), sql.Literal(scenario)
        )

    def runs(self, scenario: str) -> list[Row]:
        return self.rows(
            sql.SQL("SELECT * FROM {} AS r WHERE {} ORDER BY r.run_key").format(
                self.table("runs"), self.scenario_runs(scenario)
            )
        )

    def live_runs(self, scenario: str) -> int:
        found = self.one(
            sql.SQL("SELECT count(*) AS n FROM {} AS r WHERE {} AND r.status <> ALL({})").format(
                self.table("runs"), self.scenario_runs(scenario), sql.Literal(list(TERMINAL))
            )
        )
        return int(found["n"])

    def live_queued(self, scenario: str) -> int:
        found = self.one(
            sql.SQL("SELECT count(*) AS n FROM {} AS r WHERE {} AND r.status = 'queued'").format(
                self.table("runs"), self.scenario_runs(scenario)
            )
        )
        return int(found["n"])

    def progress(self, scenario: str) -> tuple[Any, ...]:
        """Changes whenever any run of the scenario moves (versions only grow)."""
        found = self.one(
            sql.SQL(
                "SELECT coalesce(sum(r.version), 0) AS v, "
                "count(*) FILTER (WHERE r.status <> ALL({})) AS live FROM {} AS r WHERE {}"
            ).format(sql.Literal(list(TERMINAL)), self.table("runs"), self.scenario_runs(scenario))
        )
        return (found["v"], found["live"])

    def attempts(self, scenario: str) -> list[Row]:
        return self.rows(
            sql.SQL(
                "SELECT a.* FROM {} AS a JOIN {} AS r USING ({}) WHERE {} ORDER BY a.run_id, a.attempt_no"
            ).format(
                self.table("attempts"), self.table("runs"), self._run_key(), self.scenario_runs(scenario)
            )
        )

    def lapsed_leases(self, scenario: str) -> list[Row]:
        """The scenario's running live rows whose lease (visible_at) has run out."""
        return self.rows(
            sql.SQL(
                "SELECT q.* FROM {} AS q JOIN {} AS r USING ({}) "
                "WHERE {} AND q.state = 'running' AND q.visible_at < now()"
            ).format(
                self.table("run_queue"), self.table("runs"), self._run_key(), self.scenario_runs(scenario)
            )
        )

    def _run_key(self) -> sql.Composable:
        names = [self.tenant_column, "run_id"] if self.tenant_column else ["run_id"]
        return sql.SQL(", ").join(sql.Identifier(n) for n in names)

    def _aliased(self, alias: str) -> sql.Composable:
        names = [self.tenant_column, "run_id"] if self.tenant_column else ["run_id"]
        return sql.SQL(", ").join(sql.Identifier(alias, n) for n in names)

    def child_rows(self, table: str, scenario: str) -> list[Row]:
        return self.rows(
            sql.SQL("SELECT c.* FROM {} AS c JOIN {} AS r USING ({}) WHERE {}").format(
                self.table(table), self.table("runs"), self._run_key(), self.scenario_runs(scenario)
            )
        )

    def retire(self, scenario: str) -> int:
        """Cancel what a scenario left live (a broken one can), so the next scenario's
        workers never claim it; returns how many runs that was."""
        with self.as_role("owner"):
            ended = sql.SQL(
                "UPDATE {} AS a SET status = 'interrupted', ended_at = now(), "
                "interruption_reason = 'prove_retired' FROM {} AS r "
                "WHERE a.run_id = r.run_id AND a.status = 'active' AND {}"
            ).format(self.table("attempts"), self.table("runs"), self.scenario_runs(scenario))
            self.conn.execute(ended)
            self.conn.execute(
                sql.SQL("DELETE FROM {} AS q USING {} AS r WHERE ({}) = ({}) AND {}").format(
                    self.table("run_queue"),
                    self.table("runs"),
                    self._aliased("q"),
                    self._aliased("r"),
                    self.scenario_runs(scenario),
                )
            )
            cancelled = self.conn.execute(
                sql.SQL(
                    "UPDATE {} AS r SET status = 'cancelled', finished_at = now(), version = r.version + 1 "
                    "WHERE {} AND r.status <> ALL({})"
                ).format(self.table("runs"), self.scenario_runs(scenario), sql.Literal(list(TERMINAL)))
            )
            return cancelled.rowcount

    def cleanup(self) -> None:
        """Delete everything prove wrote: its runs (with their attempts, checkpoints,
        events, operations and messages, by the FK cascade) and its tenants."""
        with self.as_role("owner"):
            self.conn.execute(
                sql.SQL("DELETE FROM {} AS r WHERE r.kind = %s").format(self.table("runs")), [PROVE_KIND]
            )
            if self.tenant_column:
                self.conn.execute(
                    sql.SQL("DELETE FROM {} WHERE name LIKE %s").format(self.table("tenants")),
                    [PROVE_TENANT_PREFIX + "%"],
                )
