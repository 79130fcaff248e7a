"""Pooler restart and terminated sessions: the workers reach the database through a
PgBouncer in transaction mode (one server session per worker), and five times while they
drain runs either the pooler is killed and started again on its port, or
`pg_terminate_backend` ends a random half of the server sessions behind it. Workers
reconnect and poll again (a claim, a read: idempotent); what a cut-off statement was
doing is never acknowledged, and its run is taken over once its lease lapses.

Observed (`faults`): the workers' journal of acknowledged commits against the database
afterwards: nothing acknowledged lost, no acknowledged step done twice, nothing stuck,
and a claim from before the first fault refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from psycopg.conninfo import conninfo_to_dict

from agentddl.checks.db.pgbouncer import PgBouncer, pgbouncer_installed
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext
from agentddl.checks.prove.scenarios.faults import (
    GUARDED,
    drain_through_faults,
    work_drain,
    work_hold,
    work_stale_write,
)
from agentddl.checks.prove.sessions import open_session

NAME = "pooler_restart"
__all__ = ["SCENARIO", "run", "work_drain", "work_hold", "work_stale_write"]
# the coordinator's own sessions (direct, not pooled) are never terminated
SPARED = "agentddl-prove-coordinator%"

SCENARIO = Scenario(NAME, order=16, guarded=GUARDED, own_server=True, available=pgbouncer_installed)


def run(ctx: ScenarioContext) -> ScenarioResult:
    direct = ctx.pool.setup
    if direct is None:  # the runner configures the pool before any scenario
        raise RuntimeError("pooler_restart needs configured workers")
    database = conninfo_to_dict(ctx.observer.dsn)["dbname"]
    injected = {"pooler_restarts": 0, "terminations": 0, "sessions_terminated": 0}
    with PgBouncer(ctx.observer.dsn, pool_size=len(ctx.slots)) as pooler:

        def fault() -> None:  # a pooler restart first, then sessions terminated, in turn
            if injected["pooler_restarts"] <= injected["terminations"]:
                pooler.crash()
                pooler.restart()
                injected["pooler_restarts"] += 1
            else:
                injected["sessions_terminated"] += _terminate_half(ctx)
                injected["terminations"] += 1

        ctx.pool.configure(replace(direct, dsn=pooler.dsn_template.format(database=database), pooled=True))
        try:
            counts, dispatch = drain_through_faults(ctx, fault)
        finally:
            ctx.pool.configure(direct)
    found: dict[str, Any] = {**counts, **injected}
    return ctx.result(found, SCENARIO.guarded, dispatch)


def _terminate_half(ctx: ScenarioContext) -> int:
    """pg_terminate_backend on a random half of the database's other sessions (the
    pooler's server sessions; the coordinator's are spared); how many it ended."""
    with open_session(ctx.observer.dsn, "coordinator-terminator") as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
            "AND coalesce(application_name, '') NOT LIKE %s ORDER BY pid",
            [SPARED],
        ).fetchall()
        chosen = ctx.rng.sample([row[0] for row in rows], k=(len(rows) + 1) // 2)
        ended = [conn.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() for pid in chosen]
    return sum(1 for row in ended if row and row[0])
