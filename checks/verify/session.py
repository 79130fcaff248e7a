"""One verify run end to end: the request, the reference install of the profile, the
rules on a read-only session, and what was verified."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.catalog_rules.types import Reference
from agentddl.checks.db import connect, database_error, describe_dsn
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.verify.engine import make_context, run_rules
from agentddl.checks.verify.reference import build_reference, create_scratch, read_reference
from agentddl.checks.verify.result import VerifyResult
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_profile

# Catalog reads are quick: one that runs a minute is stuck. A migration holding ACCESS
# EXCLUSIVE on a table makes a catalog function wait for it: give up rather than queue.
SETTINGS = {"statement_timeout": "60s", "lock_timeout": "5s"}
FRESH_INSTALL = "scratch database (the profile's schema.sql, just installed)"


@dataclass(frozen=True)
class VerifyRequest:
    """What to verify. Without a `dsn`, the profile's schema is installed in a scratch
    database and verified there (the profile's own schema, proven clean)."""

    dsn: str | None = None  # the database verified; only read (read-only session)
    profile: Path | None = None  # the profile to verify against (or give its `model`)
    model: SchemaModel | None = None
    schemas: Sequence[str] = ()  # default: the profile's schema, else every user schema
    # where the profile's reference install goes: default the dsn's server, else embedded
    server: str | None = None
    pg_version: int | None = None  # the embedded server's major (without dsn and server)


def run(request: VerifyRequest) -> VerifyResult:
    """Verify what `request` names; raises AgentDDLError (one line) for a usage or
    database error."""
    model = _model(request)
    if model is not None and len(request.schemas) > 1:
        raise AgentDDLError("--profile verifies one schema: give at most one --schema")
    if request.pg_version is not None and (request.dsn or request.server):
        raise AgentDDLError("--pg-version starts an embedded server: not with --server or --dsn")
    if request.dsn is not None:
        return _verify_target(request, request.dsn, model)
    if model is not None:
        return _verify_fresh_install(request, model)
    raise AgentDDLError("verify needs --dsn (or AGENTDDL_DSN), or --profile to verify a fresh install")


def _model(request: VerifyRequest) -> SchemaModel | None:
    if request.profile is not None and request.model is not None:
        raise AgentDDLError("give a profile or a model, not both")
    return derive(load_profile(request.profile)) if request.profile is not None else request.model


def _verify_target(request: VerifyRequest, dsn: str, model: SchemaModel | None) -> VerifyResult:
    reference = None
    if model is not None:  # the reference goes on the target's server unless --server says
        with scratch_server(request.server, dsn, None) as server:
            reference = build_reference(server, model)
    return _verify(dsn, model, reference, request.schemas, describe_dsn(dsn))


def _verify_fresh_install(request: VerifyRequest, model: SchemaModel) -> VerifyResult:
    """Install the model's schema in a scratch database and verify that: it is its own
    reference (no second install to compare with)."""
    prefer = model.profile.engine.version
    with scratch_server(request.server, None, request.pg_version, prefer) as server:
        dsn = create_scratch(server, "the profile's install")
        try:
            install_profile(dsn, model, server.version)
            with connect(dsn, read_only=True) as connection:
                reference = read_reference(connection, model, server.version)
            where = f"embedded {FRESH_INSTALL}"
            if request.server is not None:
                where = f"{FRESH_INSTALL} on {describe_dsn(server.admin_dsn)}"
            return _verify(dsn, model, reference, request.schemas, where)
        finally:
            server.drop_database(dsn)


def _verify(
    dsn: str, model: SchemaModel | None, reference: Reference | None, schemas: Sequence[str], database: str
) -> VerifyResult:
    with connect(dsn, read_only=True, settings=SETTINGS) as connection:
        try:
            context = make_context(connection, schemas, model, reference)
            findings = run_rules(connection, context)
        except psycopg.Error as error:  # e.g. no USAGE on a schema a rule reads
            raise database_error(error, f"reading the catalog of {describe_dsn(dsn)}") from None
    about: dict[str, Any] = {
        "database": database,
        "server_version": context.server_version,
        "schemas": list(context.schemas),
        "profile": model.profile.name if model is not None else None,
    }
    return VerifyResult(findings, about)
