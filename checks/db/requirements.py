"""What a server and a database must have before a family works there: the profile's
engine version (its schema and queries use what that version has) and, in place, the
profile's schema with its tables."""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel
from agentddl.generator.profile import Profile


def require_engine(profile: Profile, version: int, where: str, command: str) -> None:
    """A server older than the profile's engine cannot run its schema and queries:
    `command` (prove, bench) says how to run it on one that can."""
    wanted = profile.engine.version
    if version < wanted:
        raise AgentDDLError(
            f"profile {profile.name!r} targets PostgreSQL {wanted}, but {where} runs PostgreSQL "
            f"{version}: {command} on PostgreSQL {wanted} or newer (--pg-version {wanted}, --server or "
            "--dsn), or lower the profile's engine.version"
        )


def require_embedded_engine(
    profile: Profile, pg_version: int | None, server: str | None, command: str
) -> None:
    """Before an embedded server of `--pg-version` is started (no `--server`): a major
    older than the profile's engine is refused at once, not after the server is up."""
    if pg_version is not None and server is None:
        where = f"the embedded server (--pg-version {pg_version})"
        require_engine(profile, pg_version, where, command)


def require_schema(conn: psycopg.Connection[Any], model: SchemaModel, where: str, command: str) -> None:
    """In place, the profile's schema with every table of the model: a schema of another
    shape (or of an earlier agentddl layout, without the live set) is one clear line, not
    a failed query in the middle of the work."""
    schema = model.schema
    found = {
        row[0]
        for row in conn.execute(
            "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'p')",
            [schema],
        )
    }
    if not found:
        raise AgentDDLError(f"{where} has no schema {schema!r} (or no table in it) to {command}")
    missing = [table.name for table in model.tables if table.name not in found]
    if missing:
        raise AgentDDLError(
            f"{where}: schema {schema!r} lacks the profile's {', '.join(missing)}: not the profile's "
            f"schema, or an install of an earlier layout (agentddl generate writes the revision that "
            f"brings it up to date); {command} needs the profile's own tables"
        )
