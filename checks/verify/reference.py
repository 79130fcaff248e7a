"""The reference for `verify --profile`: the model's own schema.sql installed in a
scratch database on the same server, read back as a catalog `Snapshot`.

Comparing the live schema with a real installation of the declared DDL (rather than
with the DDL's text) lets PostgreSQL normalize both sides the same way, on the same
major version.
"""

from __future__ import annotations

import psycopg

from agentddl.checks.catalog_rules.types import Reference
from agentddl.checks.db import PostgresServer, connect, database_error, describe_dsn
from agentddl.checks.db.catalog import read_snapshot
from agentddl.checks.db.declared import model_roles
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.rows import Connection
from agentddl.generator.model import SchemaModel


def create_scratch(server: PostgresServer, purpose: str) -> str:
    """A scratch database on `server` (dropped by the caller); no CREATEDB is one line."""
    try:
        return server.create_database()
    except psycopg.Error as error:
        where = describe_dsn(server.admin_dsn)
        raise database_error(error, f"creating a scratch database on {where} for {purpose}") from None


def build_reference(server: PostgresServer, model: SchemaModel) -> Reference:
    """Install the model's schema.sql into a scratch database of `server`, read it, drop it."""
    dsn = create_scratch(server, "the profile's reference install")
    try:
        install_profile(dsn, model, server.version)
        with connect(dsn, read_only=True) as connection:
            return read_reference(connection, model, server.version)
    finally:
        server.drop_database(dsn)


def read_reference(connection: Connection, model: SchemaModel, version: int) -> Reference:
    """The reference read from a database that holds a fresh install of the model's schema."""
    return Reference(read_snapshot(connection, model.schema, model_roles(model)), version)
