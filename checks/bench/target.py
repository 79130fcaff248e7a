"""Where bench runs: the schema already in the database `--dsn` names, measured in place
on the history it holds; else, for each history size, a scratch database with a fresh
install of the profile's schema and that many rows of history seeded, on `--server` or on
an embedded server bench starts with durable settings (fsync, full_page_writes and
synchronous_commit on, the data directory on disk).

Either way the server must be at least the profile's engine version: the schema and its
queries use what that version has.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg

from agentddl.checks.bench.options import BenchRequest
from agentddl.checks.core.progress import Progress
from agentddl.checks.db import PostgresServer, connect, describe_dsn
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.db.requirements import require_embedded_engine, require_engine, require_schema
from agentddl.checks.db.seed import seed_model
from agentddl.generator.model import SchemaModel


class Target(abc.ABC):
    """A server bench works on; `database(model, history)` is the database one history
    size is measured in, for a with-block, with the row counts it holds."""

    def __init__(self, server: PostgresServer, where: str, progress: Progress, embedded: bool) -> None:
        self.server, self.where, self.progress, self.embedded = server, where, progress, embedded

    @property
    def version(self) -> int:
        return self.server.version

    @abc.abstractmethod
    def database(
        self, model: SchemaModel, history: int | None
    ) -> contextlib.AbstractContextManager[tuple[str, dict[str, int]]]:
        """(dsn, rows per table) of the database to measure, for a with-block."""


class InPlace(Target):
    """The schema already in `dsn`, on the history it holds."""

    def __init__(self, dsn: str, progress: Progress) -> None:
        super().__init__(PostgresServer(dsn), describe_dsn(dsn), progress, embedded=False)
        self.dsn = dsn

    @contextlib.contextmanager
    def database(self, model: SchemaModel, history: int | None) -> Iterator[tuple[str, dict[str, int]]]:
        require_engine(model.profile, self.version, self.where, "bench")
        with connect(self.dsn) as conn:
            require_schema(conn, model, self.where, "bench")
            rows = estimated_rows(conn, model)
        self.progress(f"measuring {model.schema} in {self.where} in place")
        yield self.dsn, rows


class Scratch(Target):
    """A scratch database per history size on the server, the schema installed and seeded."""

    @contextlib.contextmanager
    def database(self, model: SchemaModel, history: int | None) -> Iterator[tuple[str, dict[str, int]]]:
        require_engine(model.profile, self.version, self.where, "bench")
        label = f"history {history or 0:,}"
        self.progress(f"{label}: installing the schema into a scratch database on {self.where}")
        with self.server.scratch_database() as scratch:
            install_profile(scratch, model, self.version)
            rows = {table.name: 0 for table in model.tables}
            if history:
                stats = seed_model(
                    scratch,
                    model,
                    history,
                    progress=lambda table, n: self.progress(f"{label}: seeding {table}, {n:,} rows"),
                )
                rows.update(stats.rows)
            yield scratch, rows


def estimated_rows(conn: psycopg.Connection[Any], model: SchemaModel) -> dict[str, int]:
    """Rows per table as the statistics estimate them (partitions summed): no full scans
    of a user's tables."""
    rows = {}
    for table in model.tables:
        found = conn.execute(
            "SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint FROM pg_class AS c "
            "WHERE c.oid IN (SELECT relid FROM pg_partition_tree(to_regclass(%(t)s)) WHERE isleaf)",
            {"t": f'"{model.schema}"."{table.name}"'},
        ).fetchone()
        rows[table.name] = int(found[0]) if found else 0
    return rows


@contextlib.contextmanager
def bench_target(request: BenchRequest, progress: Progress) -> Iterator[Target]:
    """The request's target for the block (an embedded server started here is stopped at
    its end)."""
    if request.dsn is not None:
        yield InPlace(request.dsn, progress)
        return
    engine = request.profile.engine.version
    require_embedded_engine(request.profile, request.pg_version, request.server, "bench")
    with scratch_server(request.server, None, request.pg_version, prefer=engine, durable=True) as server:
        where = f"the server at {describe_dsn(server.admin_dsn)}"
        if request.server is None:
            progress(f"started a durable embedded PostgreSQL {server.version}")
        yield Scratch(server, where, progress, embedded=request.server is None)
