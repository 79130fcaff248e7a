"""The --existing copy: the schema already in the user's database, recreated in the
scratch database the audit seeds (the user's own tables are never written).

The DDL comes from pg_dump --schema-only. pg_partman's registration does not: the
extension lives in its own schema and its part_config rows are data, so for a schema
pg_partman manages the extension is created in the scratch database and the rows for
the schema's tables are copied (with an empty template table where one is named), so
seeding can make the history window's partitions the way production does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.db import PostgresServer, connect, database_error, find_installations
from agentddl.generator.errors import AgentDDLError

# Reading the user's database: read-only, and never waiting long behind its locks.
READ_SETTINGS = {"statement_timeout": "60s", "lock_timeout": "5s"}


def copy_schema(server: PostgresServer, source_dsn: str, target_dsn: str, schema: str) -> None:
    """The schema's DDL (pg_dump --schema-only, no data) from the user's database into
    the scratch one, with a local pg_dump at least as new as the server. Grants come
    along (the paths run as their production roles, which live in the same cluster)."""
    dump = _pg_dump(server.version)
    command = [str(dump), "--schema-only", "--no-owner", f"--schema={schema}", source_dsn]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    except subprocess.CalledProcessError as error:
        first = (error.stderr or "").strip().splitlines()[:1]
        raise AgentDDLError(f"pg_dump of schema {schema!r} failed: {' '.join(first)}") from error
    # psql meta-commands (\restrict in recent pg_dump) are not SQL
    ddl = "\n".join(line for line in done.stdout.splitlines() if not line.startswith("\\"))
    try:
        with connect(target_dsn) as conn:
            conn.execute(ddl.encode())
            _copy_partman(source_dsn, conn, schema)
    except psycopg.Error as error:
        raise database_error(error, f"copying schema {schema!r} into the scratch database") from error


def _copy_partman(source_dsn: str, target: psycopg.Connection[Any], schema: str) -> None:
    """pg_partman's part_config rows for the schema's tables, every column as it is."""
    with connect(source_dsn, read_only=True, settings=READ_SETTINGS) as source:
        registered = source.execute("SELECT to_regclass('partman.part_config') IS NOT NULL").fetchone()
        if not registered or not registered[0]:
            return
        cursor = source.execute(
            "SELECT * FROM partman.part_config WHERE parent_table LIKE %s", [f"{schema}.%"]
        )
        columns = [d.name for d in cursor.description or ()]
        rows = cursor.fetchall()
    if not rows:
        return
    target.execute("CREATE SCHEMA IF NOT EXISTS partman")
    target.execute("CREATE EXTENSION IF NOT EXISTS pg_partman SCHEMA partman")
    for row in rows:
        config = dict(zip(columns, row, strict=True))
        if config.get("template_table"):
            _template(target, str(config["template_table"]), str(config["parent_table"]))
    insert = sql.SQL("INSERT INTO partman.part_config ({}) VALUES ({})").format(
        sql.SQL(", ").join(sql.Identifier(c) for c in columns),
        sql.SQL(", ").join(sql.Placeholder() for _ in columns),
    )
    with target.cursor() as cur:
        cur.executemany(insert, rows)


def _template(target: psycopg.Connection[Any], template: str, parent: str) -> None:
    """An empty template table shaped like the parent (pg_partman copies what partitions
    don't inherit from it; the audit needs none of that)."""
    t_schema, t_name = template.split(".", 1)
    p_schema, p_name = parent.split(".", 1)
    target.execute(
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.{} (LIKE {}.{})").format(
            sql.Identifier(t_schema), sql.Identifier(t_name), sql.Identifier(p_schema), sql.Identifier(p_name)
        )
    )


def _pg_dump(major: int) -> Path:
    for version, bindir in sorted(find_installations().items()):
        if version >= major and (bindir / "pg_dump").is_file():
            return bindir / "pg_dump"
    raise AgentDDLError(f"--existing needs a local pg_dump of PostgreSQL {major} or newer (none found)")
