"""Every prove connection (the coordinator's, the sampler's, each worker process's) is
opened by `db.connect`, under an application_name that says which it is, so a DBA
watching pg_stat_activity during a prove run sees `agentddl-prove-coordinator`,
`agentddl-prove-sampler`, `agentddl-prove-3`."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from agentddl.checks.db.connect import connect


def open_session(dsn: str, who: str, **options: Any) -> psycopg.Connection[Any]:
    """db.connect(dsn, **options) as `agentddl-prove-<who>`."""
    return connect(_named(dsn, f"agentddl-prove-{who}"), **options)


def _named(dsn: str, name: str) -> str:
    try:
        return make_conninfo(dsn, application_name=name)
    except psycopg.ProgrammingError:  # not a DSN: connect() says so, in its words
        return dsn
