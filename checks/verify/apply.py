"""`apply`: install a profile's schema on a real PostgreSQL two ways and prove it landed.

schema.sql goes into one scratch database, the Alembic revision (`alembic upgrade
head`) into another on the same server; both are read back with the one catalog
snapshot (`db.catalog`). Every object the model declares must be in the schema.sql
install, and the two catalogs must be equal (`db.catalog.diff` empty).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic.util import CommandError

from agentddl.checks.alembic import online as alembic_run
from agentddl.checks.db import PostgresServer, connect, describe_dsn
from agentddl.checks.db.catalog import Snapshot, diff, read_snapshot
from agentddl.checks.db.declared import compare_with_model, model_roles
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.verify.apply_findings import migration_findings, undeclared_findings
from agentddl.checks.verify.reference import create_scratch
from agentddl.checks.verify.result import ApplyResult
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_profile
from agentddl.generator.render.alembic import render_revision


@dataclass(frozen=True)
class ApplyRequest:
    profile: Path | None = None  # the profile to install (or give its `model`)
    model: SchemaModel | None = None
    server: str | None = None  # where the scratch databases go; default: an embedded server
    pg_version: int | None = None  # the embedded server's major (default: the profile's)
    keep: bool = False  # keep both databases (on success) for a look; needs `server`


def run_apply(request: ApplyRequest) -> ApplyResult:
    """Install, read back, compare; raises AgentDDLError (one line) when a step fails."""
    model = _model(request)
    if request.keep and request.server is None:
        raise AgentDDLError("--keep needs --server: an embedded server's databases go when it stops")
    engine = model.profile.engine.version
    with scratch_server(request.server, None, request.pg_version, prefer=engine) as server:
        if server.version < engine:
            raise AgentDDLError(
                f"the profile is for PostgreSQL {engine} (engine.version), the server runs "
                f"{server.version}: give --pg-version {engine} or a --server of {engine} or newer"
            )
        databases: list[str] = []
        kept = False
        try:
            from_sql, from_alembic = _install_both(server, model, databases)
            findings = undeclared_findings(model.schema, compare_with_model(model, from_sql))
            findings += migration_findings(model.schema, diff(from_sql, from_alembic))
            kept = request.keep
        finally:
            for dsn in [] if kept else databases:
                server.drop_database(dsn)
        about = {
            "profile": model.profile.name,
            "schema": model.schema,
            "server": describe_dsn(server.admin_dsn),
            "server_version": server.version,
            "kept": [describe_dsn(dsn) for dsn in databases] if kept else None,
        }
        return ApplyResult(about, _tables(model, from_sql), findings)


def _model(request: ApplyRequest) -> SchemaModel:
    if request.model is not None and request.profile is None:
        return request.model
    if request.profile is None or request.model is not None:
        raise AgentDDLError("apply needs one profile: --profile PROFILE")
    return derive(load_profile(request.profile))


def _install_both(
    server: PostgresServer, model: SchemaModel, databases: list[str]
) -> tuple[Snapshot, Snapshot]:
    """schema.sql into one scratch database and the Alembic revision into another (both
    appended to `databases` as soon as they exist), read back."""
    databases.append(create_scratch(server, "schema.sql"))
    databases.append(create_scratch(server, "the Alembic revision"))
    via_sql, via_alembic = databases
    install_profile(via_sql, model, server.version)
    try:
        alembic_run.upgrade(render_revision(model), via_alembic)
    except CommandError as error:  # env.py says a connection or migration failure in one line
        raise AgentDDLError(f"alembic upgrade head: {error}") from None
    return _read(via_sql, model), _read(via_alembic, model)


def _read(dsn: str, model: SchemaModel) -> Snapshot:
    with connect(dsn, read_only=True) as connection:
        return read_snapshot(connection, model.schema, model_roles(model))


def _tables(model: SchemaModel, snapshot: Snapshot) -> list[dict[str, Any]]:
    partitions = snapshot.tables_of.get("partitions", {}).values()
    return [
        {
            "table": table.name,
            "constraints": 1 + len(table.checks) + len(table.foreign_keys) + len(table.uniques),
            "indexes": len(table.indexes),
            "partitions": sum(parent == table.name for parent in partitions) if table.partitioning else None,
        }
        for table in model.tables
    ]
