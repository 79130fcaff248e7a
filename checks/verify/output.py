"""`agentddl verify` and `agentddl apply` with `--format json` as typed models:
docs/schemas/verify.schema.json and apply.schema.json are generated from them
(`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.core.report.schema import Closed, Envelope


class VerifyOutput(Envelope):
    """`agentddl verify --format json`. A database's catalog: `database`, `server_version`,
    `schemas` and `profile`; `--citus` (static, no server): `check`, and `profile` or
    `folder`."""

    database: str | SkipJsonSchema[None] = Field(None, description="host:port/dbname verified.")
    server_version: int | SkipJsonSchema[None] = Field(None, description="PostgreSQL major of the server.")
    schemas: list[str] | SkipJsonSchema[None] = Field(None, description="The schemas verified.")
    profile: str | None = Field(None, description="The profile's name (null: generic rules only).")
    check: str | SkipJsonSchema[None] = Field(None, description='With --citus: "citus (static)".')
    folder: str | SkipJsonSchema[None] = Field(None, description="With --citus --generated: the folder.")


class AppliedTable(Closed):
    """A declared table, counted in pg_catalog after the install."""

    table: str
    constraints: int = Field(ge=0)
    indexes: int = Field(ge=0)
    partitions: int | None = Field(ge=0, description="Partitions attached (null: not partitioned).")


class ApplyOutput(Envelope):
    """`agentddl apply --format json`: the profile installed twice (schema.sql, and
    `alembic upgrade head`) and compared with pg_catalog and with each other."""

    profile: str = Field(description="The profile's name.")
    schema_: str = Field(alias="schema", description="The schema installed.")
    server: str = Field(description="host:port/dbname of the server used.")
    server_version: int = Field(description="PostgreSQL major of the server.")
    kept: list[str] | None = Field(description="With --keep: the databases left behind (else null).")
    tables: list[AppliedTable]
