"""Where prove runs: the schema already in the database `--dsn` names, proven in place;
else a scratch database with a fresh install of the profile's schema, on `--server` or
on an embedded server.

In place, prove writes only rows it can find again (runs of kind 'agentddl.prove',
tenants named 'agentddl-prove ...') and deletes them when it is done. Its workers claim
runs and relay messages across tenants, so it refuses a database where anything is live:
queued, running or waiting runs, active attempts, undelivered messages (a copy of
production with its workers stopped is the place for it).

Either way the server must be at least the profile's engine version: the schema and
its queries use what that version has.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator

from agentddl.checks.core.progress import Progress
from agentddl.checks.db import PostgresServer, connect, describe_dsn
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.process import LocalServer
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.db.requirements import require_embedded_engine, require_engine, require_schema
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.options import ProveRequest
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

# An embedded server keeps scratch speed (no fsync, in RAM) but acknowledges a commit only
# once its WAL is written: what the server_crash scenario holds it to (a killed process
# loses no written WAL). --server-setting goes over it.
EMBEDDED_SETTINGS = {"synchronous_commit": "on"}
LIVE_ROWS = (
    ("runs", "status IN ('queued', 'running', 'waiting')", "live runs"),
    ("attempts", "status = 'active'", "active attempts"),
    ("outbox", "delivered_at IS NULL", "undelivered outbox messages"),
)


class Target(abc.ABC):
    """A server prove works on; `database(model)` is the database one variant is
    proven in, for a with-block."""

    def __init__(self, version: int, where: str, progress: Progress) -> None:
        self.version, self.where, self.progress = version, where, progress

    def require_engine(self, model: SchemaModel) -> None:
        require_engine(model.profile, self.version, self.where, "prove")

    @property
    def crashable(self) -> LocalServer | None:
        """The server's process when prove started it (the server_crash scenario kills it)."""
        return None

    @abc.abstractmethod
    def database(self, model: SchemaModel) -> contextlib.AbstractContextManager[str]:
        """The database `model`'s schema is proven in, for a with-block."""


class InPlace(Target):
    """The schema already in `dsn`."""

    def __init__(self, dsn: str, progress: Progress) -> None:
        super().__init__(PostgresServer(dsn).version, describe_dsn(dsn), progress)
        self.dsn = dsn

    @contextlib.contextmanager
    def database(self, model: SchemaModel) -> Iterator[str]:
        self.require_engine(model)
        with connect(self.dsn) as conn:
            require_schema(conn, model, self.where, "prove")
        observer = Observer(self.dsn, model)
        try:
            observer.cleanup()  # what an interrupted earlier prove left
            observer.refuse_live(LIVE_ROWS)
        except AgentDDLError as error:
            raise AgentDDLError(f"{self.where}: {error}") from error
        finally:
            observer.close()
        self.progress(f"{model.profile.lock_strategy.value}: proving {model.schema} in {self.where} in place")
        yield self.dsn


class Scratch(Target):
    """A scratch database per variant on `server`, the profile's schema installed."""

    def __init__(self, server: PostgresServer, progress: Progress) -> None:
        super().__init__(server.version, f"the server at {describe_dsn(server.admin_dsn)}", progress)
        self.server = server

    @property
    def crashable(self) -> LocalServer | None:
        return self.server.local

    @contextlib.contextmanager
    def database(self, model: SchemaModel) -> Iterator[str]:
        self.require_engine(model)
        strategy = model.profile.lock_strategy.value
        self.progress(f"{strategy}: installing the schema into a scratch database on {self.where}")
        with self.server.scratch_database() as scratch:
            install_profile(scratch, model, self.version)
            yield scratch


@contextlib.contextmanager
def prove_target(request: ProveRequest, progress: Progress) -> Iterator[Target]:
    """The request's target for the block (an embedded server started here is stopped
    at its end)."""
    if request.dsn is not None:
        yield InPlace(request.dsn, progress)
        return
    engine = request.profile.engine.version
    require_embedded_engine(request.profile, request.pg_version, request.server, "prove")
    settings = {**EMBEDDED_SETTINGS, **dict(request.server_settings)}
    with scratch_server(request.server, None, request.pg_version, prefer=engine, settings=settings) as server:
        yield Scratch(server, progress)
