"""One verify run end to end: connect (read-only), build the profile's reference, run
the rules, say what was verified."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.core.findings import Finding
from agentddl.checks.db import open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.server import connect, describe_dsn
from agentddl.checks.verify.reference import Reference, build_reference, read_reference
from agentddl.checks.verify.run import make_context, run_rules
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel


@dataclass(frozen=True)
class VerifyResult:
    findings: list[Finding]
    about: dict[str, Any] = field(default_factory=dict)  # what was verified, for the report


def verify_target(dsn: str, model: SchemaModel | None, schemas: Sequence[str]) -> VerifyResult:
    """Verify the database at `dsn` (never changed); against `model` when given."""
    with open_server(dsn) as server:  # connects first: an unreachable server is one line
        reference = build_reference(server, model) if model is not None else None
        return _verify(dsn, model, reference, schemas, installed=False)


def verify_installed(model: SchemaModel, schemas: Sequence[str]) -> VerifyResult:
    """No database given: install the model's schema on an embedded scratch server and
    verify that (proves the profile's own schema is clean on a real server)."""
    with open_server(None, prefer=model.profile.engine.version) as server, server.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as connection:
            install_schema(connection, model)
            # a fresh install of the model is its own reference: no second install to compare with
            reference = read_reference(connection, model, server.version)
        return _verify(dsn, model, reference, schemas, installed=True)


def _verify(
    dsn: str,
    model: SchemaModel | None,
    reference: Reference | None,
    schemas: Sequence[str],
    *,
    installed: bool,
) -> VerifyResult:
    with _connect(dsn) as connection:
        context = make_context(connection, schemas, model, reference)
        try:
            findings = run_rules(connection, context)
        except psycopg.Error as error:  # e.g. no USAGE on a schema a rule reads
            first = (str(error).strip().splitlines() or [""])[0]
            raise AgentDDLError(f"reading the catalog of {describe_dsn(dsn)} failed: {first}") from error
    about: dict[str, Any] = {
        "database": "embedded scratch database (the profile's schema.sql, just installed)"
        if installed
        else describe_dsn(dsn),
        "server_version": context.server_version,
        "schemas": list(context.schemas),
        "profile": model.profile.name if model is not None else None,
    }
    return VerifyResult(findings, about)


def _connect(dsn: str) -> psycopg.Connection[Any]:
    connection = connect(dsn)
    connection.execute("SET default_transaction_read_only = on")  # verify only reads
    return connection
