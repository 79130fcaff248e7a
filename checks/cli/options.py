"""The command line's shared options: one option type per meaning, the same everywhere.

- `--dsn`: the database this command works on (reads, audits, traces a copy of, proves
  in). Also $AGENTDDL_DSN.
- `--server`: a server where the command may create scratch databases (needs CREATEDB):
  a reference install, a trace copy, a fresh install to prove. Default: the --dsn's
  server, else an embedded server the command starts. Also $AGENTDDL_SERVER.
- `--pg-version`: the PostgreSQL major to check against; for commands that start an
  embedded server, the major it starts.
- `--profile`: the agentddl profile (YAML).
- `--format`: text, json, sarif, github, gitlab or markdown, for every command that reports findings.
- `--redis`: the Redis of a profile's hot projection (`hot_state.store: redis`). Default: a
  throwaway redis-server the command starts. Also $AGENTDDL_REDIS.

CLI modules import only this, typer and the standard library at import time, so
`agentddl --help` stays fast; the work is imported inside the command.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

DSN_ENV = "AGENTDDL_DSN"
SERVER_ENV = "AGENTDDL_SERVER"
REDIS_ENV = "AGENTDDL_REDIS"


class OutputFormat(enum.StrEnum):
    """Every reporter (agentddl.checks.core.report.FORMATS)."""

    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    gitlab = "gitlab"
    markdown = "markdown"


Dsn = Annotated[
    str | None,
    typer.Option(
        "--dsn",
        envvar=DSN_ENV,
        show_envvar=True,
        help="The database this command works on (libpq URI or key=value string).",
    ),
]
Server = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar=SERVER_ENV,
        show_envvar=True,
        help="Server for scratch databases (needs CREATEDB); default: --dsn's server, else embedded.",
    ),
]
PgVersion = Annotated[
    int | None,
    typer.Option(
        "--pg-version",
        min=9,
        max=99,
        help="PostgreSQL major to check against (and to start, where an embedded server is used).",
    ),
]
Profile = Annotated[Path | None, typer.Option("--profile", "-p", help="agentddl profile (YAML).")]
Format = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]
Redis = Annotated[
    str | None,
    typer.Option(
        "--redis",
        envvar=REDIS_ENV,
        show_envvar=True,
        help="Redis of the hot projection (hot_state.store: redis), redis://host:port/db; "
        "default: a throwaway redis-server.",
    ),
]


def finite_at_least(low: float) -> Callable[[float | None], float | None]:
    """An option callback: a number of `low` or more (click's ranges let nan and inf through)."""

    def check(value: float | None) -> float | None:
        if value is not None and not (math.isfinite(value) and value >= low):
            raise typer.BadParameter(f"expected a number of {low:g} or more, got {value}")
        return value

    return check
