"""What a server and a database must have before a family works there: the profile's
engine version (its schema and queries use what that version has) and, in place, the
profile's schema."""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.generator.errors import AgentDDLError
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


def schema_exists(conn: psycopg.Connection[Any], schema: str) -> bool:
    row = conn.execute("SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = %s)", [schema]).fetchone()
    return bool(row and row[0])
