"""Install a generated schema into a real database (schema.sql as one script)."""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.generator.model import SchemaModel
from agentddl.generator.render.ddl import render_schema_sql


def install_schema(connection: psycopg.Connection[Any], model: SchemaModel) -> None:
    """Run the model's schema.sql on an autocommit connection (it holds many statements)."""
    connection.execute(render_schema_sql(model).encode())
