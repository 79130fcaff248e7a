"""A scratch copy of a user's database: its schema, and optionally its planner
statistics (PostgreSQL 18) or a sample of its rows (db.sample).

The source is only read (pg_dump's read-only transaction, ACCESS SHARE locks); the
copy goes into a database the caller owns (a scratch database), restored with the psql
that belongs to the pg_dump used.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

import psycopg

from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db.connect import DatabaseError, connect, database_error, describe_dsn
from agentddl.checks.db.dump import STATISTICS_SINCE, DumpTools, dump_schema, require_pg_dump
from agentddl.checks.db.installations import library_env
from agentddl.checks.db.sample import copy_sample

RESTORE_TIMEOUT_SECONDS = 600
# pg_dump's preamble: `SET name = value;` lines; a newer pg_dump sets parameters an
# older server does not know (transaction_timeout, 17+), which a restore there rejects.
_SET_LINE = re.compile(r"^SET (\w+) = .*;$")
_PSQL_ERROR = re.compile(r"^psql:[^:]*:(\d+): (?:ERROR|FATAL):\s+(.*)$")


@dataclass(frozen=True)
class CloneSource:
    """What to copy from a user's database into the scratch database."""

    dsn: str  # the database to copy (only read)
    sample: int = 0  # rows per table, FK-consistent (0: schema only)
    statistics: bool = False  # its planner statistics too (a PostgreSQL 18 scratch server)

    def check(self, scratch_version: int) -> None:
        """Statistics restore only into 18+ (pg_restore_relation_stats)."""
        if self.statistics and scratch_version < STATISTICS_SINCE:
            raise DatabaseError(
                f"--statistics restores planner statistics with pg_restore_relation_stats, new in "
                f"PostgreSQL {STATISTICS_SINCE}: the scratch server is PostgreSQL {scratch_version} "
                f"(pass --server of a PostgreSQL {STATISTICS_SINCE}, or --pg-version {STATISTICS_SINCE})"
            )


def clone_into(
    source: CloneSource, target_dsn: str, target_version: int, progress: Progress = silent
) -> None:
    """Copy the source's schema (and statistics, sample) into the empty `target_dsn`."""
    source.check(target_version)
    where = describe_dsn(source.dsn)
    progress(f"dumping the schema of {where}")
    text = dump_schema(source.dsn, statistics=source.statistics)
    progress("restoring it into the scratch database")
    restore(text, target_dsn, target_version, where)
    if source.sample:
        copy_sample(source.dsn, target_dsn, source.sample, progress)


def restore(dump: str, target_dsn: str, target_version: int, source: str) -> None:
    """Run a plain-format dump with psql (stopping at the first error) on `target_dsn`."""
    tools = require_pg_dump()
    psql = _psql(tools)
    script = _for_server(dump, _known_settings(target_dsn))
    command = [str(psql), "-X", "-q", "-v", "ON_ERROR_STOP=1", f"--dbname={target_dsn}", "-f", "-"]
    try:
        result = subprocess.run(
            command,
            input=script,
            capture_output=True,
            text=True,
            timeout=RESTORE_TIMEOUT_SECONDS,
            env=library_env(tools.bin_dir),
        )
    except subprocess.TimeoutExpired:
        limit = RESTORE_TIMEOUT_SECONDS
        raise DatabaseError(f"restoring the schema of {source}: no end within {limit} s") from None
    if result.returncode != 0:
        raise DatabaseError(
            f"the schema of {source} does not restore on the scratch server "
            f"(PostgreSQL {target_version}): {_restore_error(result.stderr)}"
        )


def _psql(tools: DumpTools) -> str:
    if tools.psql is None:
        raise DatabaseError(f"no psql beside {tools.pg_dump} to restore its dump with")
    return str(tools.psql)


def _known_settings(dsn: str) -> set[str]:
    try:
        with connect(dsn) as conn:
            return {name for (name,) in conn.execute("SELECT name FROM pg_settings").fetchall()}
    except psycopg.Error as error:
        raise database_error(error, "reading the scratch server's settings") from None


def _for_server(dump: str, known: set[str]) -> str:
    """The dump with `SET` lines of parameters the server does not have commented out
    (the line numbers psql reports stay the dump's)."""
    lines = dump.splitlines(keepends=True)
    return "".join("-- " + line if _unknown_setting(line.rstrip("\n"), known) else line for line in lines)


def _unknown_setting(line: str, known: set[str]) -> bool:
    match = _SET_LINE.match(line)
    return match is not None and match.group(1).lower() not in known


def _restore_error(stderr: str) -> str:
    """psql's first ERROR, with the dump line it came from."""
    for line in stderr.splitlines():
        match = _PSQL_ERROR.match(line.strip())
        if match:
            return f"dump line {match.group(1)}: {match.group(2)}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[0] if lines else "psql failed"
