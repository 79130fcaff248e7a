"""`trace --load`: the runtime's queries run while the migration applies; a plain CREATE
INDEX makes writers wait for as long as its SHARE lock is held, CONCURRENTLY makes nobody
wait. Small scale: the default profile's schema without seeded rows, four sessions.
Nothing here depends on the machine's speed: the plain index's transaction holds its lock
from the moment every session queues behind it for 0.6 s or three times as long as they
took to get there (so a writer waits at least 0.6 s, and the workload stands still for
three quarters of the transaction: it completes fewer calls per second than in the
better of the windows before and after it, whichever a busy machine slowed down), and
"nobody waits" is nobody seen waiting at all."""

from __future__ import annotations

import threading
from pathlib import Path

from profiles import ROOT, with_version
from psycopg.conninfo import conninfo_to_dict

from agentddl.checks.db import PostgresServer
from agentddl.checks.trace import TraceResult
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.checks.trace.tracing import TraceOptions, trace_migrations
from agentddl.checks.trace.workload import Workload
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile

LOAD = Path(__file__).parents[2] / "fixtures" / "trace" / "load"
HELD_SECONDS = 0.6  # the pg_sleep in both fixtures (in create_index.sql, at least, once all wait)


def traced(server: PostgresServer, name: str) -> TraceResult:
    model = derive(with_version(load_profile(ROOT / "schemas" / "default.yaml"), server.version))
    options = TraceOptions(model=model, load=True, connections=4, settle_seconds=0.5)
    return trace_migrations(server, [LOAD / name], options)


def test_a_plain_create_index_blocks_writers_while_its_lock_is_held(trace_server: PostgresServer) -> None:
    result = traced(trace_server, "create_index.sql")
    by_sql = {s.sql.split()[0] + " " + s.sql.split()[1]: s for s in result.statements}
    index = by_sql["CREATE INDEX"]
    assert index.strongest_lock == "ShareLock"
    assert index.blocked_ms is not None and index.blocked_ms >= HELD_SECONDS * 1000
    assert index.lock_held_ms >= HELD_SECONDS * 1000
    assert "workload-blocked" in {f.name for f in result.findings}
    assert result.throughput is not None and result.throughput.queries > 0
    assert result.throughput.during < max(result.throughput.before, result.throughput.after)


def test_create_index_concurrently_blocks_nobody(trace_server: PostgresServer) -> None:
    result = traced(trace_server, "create_index_concurrently.sql")
    assert [s.error for s in result.statements] == [None, None]
    # No workload call was seen waiting on a lock while it ran (its SHARE UPDATE EXCLUSIVE
    # is only seen while it runs, and on an empty table it is over within a sample or two:
    # 02_create_index_concurrently.sql makes it wait to see it)
    assert [s.blocked_ms for s in result.statements] == [0.0, 0.0]
    assert result.throughput is not None and result.throughput.during > 0
    assert "workload-blocked" not in {f.name for f in result.findings}


def test_a_workload_that_cannot_connect_is_an_error_not_a_hang(trace_server: PostgresServer) -> None:
    model = derive(with_version(load_profile(ROOT / "schemas" / "default.yaml"), trace_server.version))
    with scratch_with_schema(trace_server, model, []) as dsn:
        workload = Workload(dsn, model, connections=3)  # its tenant row is in; then the database goes
        trace_server.drop_database(dsn)
        outcome: list[BaseException | None] = []

        def start() -> None:
            try:
                workload.start()
                outcome.append(None)
            except AgentDDLError as error:
                outcome.append(error)

        starter = threading.Thread(target=start, daemon=True)
        starter.start()
        starter.join(timeout=30)
        assert not starter.is_alive(), "Workload.start() hung on a worker that never got ready"
        (error,) = outcome
        assert error is not None and str(error).startswith("the --load workload could not start: ")
        assert all(not thread.is_alive() for thread in workload._threads)
        trace_server.create_database(str(conninfo_to_dict(dsn)["dbname"]))  # for the context to drop
