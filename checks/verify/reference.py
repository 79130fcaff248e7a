"""The reference for `verify --profile`: the model's own schema.sql installed in a
scratch database on the same server, read back as `Shapes`.

Comparing the live schema with a real installation of the declared DDL (rather than
with the DDL's text) lets PostgreSQL normalize both sides the same way, on the same
major version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import psycopg

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.checks.verify.shapes import Shapes, read_shapes
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

ROLE_KINDS: tuple[Literal["owner", "app", "relay", "readonly"], ...] = ("owner", "app", "relay", "readonly")


@dataclass(frozen=True)
class Reference:
    """What the model declares, as the server itself defines it."""

    shapes: Shapes
    server_version: int


def model_roles(model: SchemaModel) -> list[str]:
    return [model.profile.role(kind) for kind in ROLE_KINDS]


def build_reference(server: PostgresServer, model: SchemaModel) -> Reference:
    """Install the model's schema.sql into a scratch database of `server`, read it, drop it."""
    try:
        dsn = server.create_database()
    except psycopg.Error as error:
        raise AgentDDLError(
            f"verify --profile needs a scratch database for the reference schema: {error}".strip()
        ) from error
    try:
        with psycopg.connect(dsn, autocommit=True) as connection:
            try:
                install_schema(connection, model)
            except psycopg.Error as error:
                raise AgentDDLError(
                    f"the profile's schema does not install on PostgreSQL {server.version}: "
                    f"{str(error).strip().splitlines()[0]}"
                ) from error
            return read_reference(connection, model, server.version)
    finally:
        server.drop_database(dsn)


def read_reference(connection: psycopg.Connection[Any], model: SchemaModel, version: int) -> Reference:
    """The reference read from a database that holds a fresh install of the model's schema."""
    return Reference(read_shapes(connection, model.schema, model_roles(model)), version)
