"""The peers' database and segments (helper of peer_bench.py): the coordinator's side.

One scratch database on the benched server holds the three peers' schemas as their
packages install them (procrastinate and langgraph in public, pgmq in its schema) and
bench's own floor: the profile's schema is installed too, only so that bench's `Stage`
makes its floor tables and tenants and bench's `open_client` pins each client to the
profile's app role, exactly as `agentddl bench` does (the peers' tables are granted to
that role). The segments then run as bench runs its own — bench's `segments` order (the
floor, then each peer followed by the floor again), a CHECKPOINT and an `Observer`
snapshot before each, bench's `figures` and `PathResult` after — on bench's clients. A
queue's backlog is made right before its segment with the peer's own statements (as
many jobs as the last floor's rate allows, bench's margin), then ANALYZEd: a seeded bench
database is analyzed too, and a queue planned on empty-table statistics is not what a
production queue runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
from peer_sql import Peer
from peer_work import (
    PEER_WORKLOADS,
    PGMQ,
    PGMQ_QUEUE,
    PROCRASTINATE,
    PROCRASTINATE_TASK,
    QUEUE_PEERS,
    PeerSetup,
)
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.checks.bench import BenchOptions, Clients
from agentddl.checks.bench.figures import Figures, PathResult, around
from agentddl.checks.bench.observe import Observer, file_system_of, not_durable, server_settings
from agentddl.checks.bench.paths import segments
from agentddl.checks.bench.runner import FIRST_RATE_GUESS, QUEUE_MARGIN, measure_segment
from agentddl.checks.bench.stage import Stage
from agentddl.checks.core.progress import Progress
from agentddl.checks.db import PostgresServer, connect
from agentddl.checks.db.install import install_profile
from agentddl.generator.model import SchemaModel
from agentddl.generator.render.queries import render_queries

BACKLOG_BATCH = 5000  # jobs or messages per statement when filling a queue
PEER_SCHEMAS = ("public", "pgmq")


@dataclass(frozen=True)
class PeerRun:
    """The peers' segments in order (floors included) and each peer's ratios to them."""

    segments: list[Figures]
    paths: list[PathResult]
    settings: dict[str, str]
    not_durable: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "durable": not self.not_durable,
            "not_durable": self.not_durable,
            "segments": [s.to_json() for s in self.segments],
            "paths": [p.to_json() for p in self.paths],
        }


def measure_peers(
    server: PostgresServer,
    model: SchemaModel,
    peers: dict[str, Peer],
    options: BenchOptions,
    clients: Clients,
    progress: Progress,
) -> PeerRun:
    """Every peer's segment, each between two floors, in a scratch database of its own."""
    with server.scratch_database() as dsn:
        progress("peers: installing procrastinate, pgmq and langgraph-checkpoint-postgres")
        install_profile(dsn, model, server.version)
        install_peers(dsn, peers, model.profile.role("app"))
        with connect(dsn) as conn:
            stage = Stage(conn, model, options.clients)
            stage.set_up(own_tenants=True)
            settings = server_settings(conn)
            setup = PeerSetup(
                dsn,
                model,
                render_queries(model),
                stage.floor_schema,
                tuple(stage.tenants),
                options.read_depth,
                statements=tuple(_statements(peers)),
            )
            observer = Observer(conn, clients.configure(setup))
            try:
                measured = _segments(conn, stage, observer, clients, peers, options, progress)
            finally:
                clients.release()
    reasons = not_durable(settings, file_system_of(settings.get("data_directory")))
    return PeerRun(measured, _paths(measured), settings, reasons)


def _statements(peers: dict[str, Peer]) -> Iterator[tuple[str, str]]:
    for peer in peers.values():
        short = peer.name.split("-")[0]  # langgraph-checkpoint-postgres -> langgraph
        for key, statement in peer.statements.items():
            yield f"{short}.{key}", statement


def install_peers(dsn: str, peers: dict[str, Peer], app_role: str) -> None:
    """Each peer's install scripts in order, as the connecting superuser (one script at a
    time: langgraph's migrations build indexes CONCURRENTLY); pgmq's queue; the grants."""
    with connect(dsn) as conn:
        for peer in peers.values():
            for script in peer.install:
                conn.execute(script.encode())
        conn.execute(peers["pgmq"].statements["create_queue"], (PGMQ_QUEUE,))
        role = sql.Identifier(app_role)
        for schema in map(sql.Identifier, PEER_SCHEMAS):
            for grant in (
                "GRANT USAGE ON SCHEMA {s} TO {r}",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {s} TO {r}",
                "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA {s} TO {r}",
            ):
                conn.execute(sql.SQL(grant).format(s=schema, r=role))


def _segments(
    conn: psycopg.Connection[Any],
    stage: Stage,
    observer: Observer,
    clients: Clients,
    peers: dict[str, Peer],
    options: BenchOptions,
    progress: Progress,
) -> list[Figures]:
    order = segments(list(PEER_WORKLOADS))
    measured: list[Figures] = []
    rate = FIRST_RATE_GUESS
    for number, workload in enumerate(order, 1):
        wanted = math.ceil(rate * options.duration * QUEUE_MARGIN) + 2 * options.clients
        if workload.name == PROCRASTINATE.name:
            _procrastinate_backlog(conn, peers["procrastinate"], wanted)
        elif workload.name == PGMQ.name:
            _pgmq_backlog(conn, peers["pgmq"], wanted)
        if workload.name in QUEUE_PEERS:
            conn.execute("ANALYZE")  # statistics that know the backlog, as a seeded bench database's do
        progress(f"peers: {number}/{len(order)} {workload.title} ({options.duration:g} s)")
        found = measure_segment(clients, stage, observer, workload, options)
        measured.append(found)
        if workload.name == "floor" and found.ops_per_second > 0:
            rate = found.ops_per_second
    return measured


def _paths(measured: list[Figures]) -> list[PathResult]:
    by_name = {w.name: w for w in PEER_WORKLOADS}
    return [
        PathResult(
            by_name[s.workload],
            s,
            around(measured, i, "floor"),
            None,
            around(measured, i, "floor", "cpu_ms_per_op") or None,
        )
        for i, s in enumerate(measured)
        if s.workload in by_name
    ]


def _procrastinate_backlog(conn: psycopg.Connection[Any], peer: Peer, wanted: int) -> None:
    """Jobs deferred with procrastinate's own defer_jobs until `wanted` wait (untimed)."""
    counts = conn.execute(peer.statements["count_jobs_status"]).fetchall()
    todo = sum(int(row[0]) for row in counts if row[1] == "todo")
    for start in range(0, max(0, wanted - todo), BACKLOG_BATCH):
        batch = min(BACKLOG_BATCH, wanted - todo - start)
        jobs = [
            ("default", PROCRASTINATE_TASK, 0, None, None, Jsonb({"n": start + n}), None)
            for n in range(batch)
        ]
        conn.execute(peer.statements["defer_jobs"], {"jobs": jobs})


def _pgmq_backlog(conn: psycopg.Connection[Any], peer: Peer, wanted: int) -> None:
    """Messages sent with pgmq's own send_batch until `wanted` wait (untimed)."""
    with conn.cursor(row_factory=dict_row) as cursor:
        metrics = cursor.execute(peer.statements["metrics"], (PGMQ_QUEUE,)).fetchone()
    waiting = int(metrics["queue_length"]) if metrics else 0
    for start in range(0, max(0, wanted - waiting), BACKLOG_BATCH):
        batch = min(BACKLOG_BATCH, wanted - waiting - start)
        messages = [Jsonb({"n": start + n}) for n in range(batch)]
        conn.execute(peer.statements["send_batch"], (PGMQ_QUEUE, messages))
