"""Install a generated schema into a real database (schema.sql as one script)."""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.checks.db.connect import connect, database_error
from agentddl.generator.model import SchemaModel
from agentddl.generator.render.ddl import render_schema_sql


def install_schema(connection: psycopg.Connection[Any], model: SchemaModel) -> None:
    """Run the model's schema.sql on an autocommit connection (it holds many statements)."""
    connection.execute(render_schema_sql(model).encode())


def install_profile(dsn: str, model: SchemaModel, server_version: int) -> None:
    """The model's schema.sql into the database at `dsn`. A server that refuses it (older
    than the profile's engine, an extension it lacks) is a DatabaseError in one line, the
    same for every command."""
    try:
        with connect(dsn) as connection:
            install_schema(connection, model)
    except psycopg.Error as error:
        target = model.profile.engine.version
        older = f" (the profile targets {target})" if server_version < target else ""
        refused = f"PostgreSQL {server_version}{older} refused the profile's schema"
        raise database_error(error, refused) from None
