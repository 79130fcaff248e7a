"""The peers' workloads, run by `agentddl bench`'s own client processes (helper of
peer_bench.py).

bench's clients (agentddl.checks.bench.pool.Clients) run a segment by its name in
agentddl.checks.bench.work.STEPS, on a bench `Client`: one connection per process,
opened by bench's open_client (db.connect, statement_timeout, dict rows, not autocommit,
pinned to the profile's app role, psycopg's default statement preparation). The floor
is bench's own step. This module adds the peers' steps to STEPS. It reaches every client
process in the `PeerSetup` the clients are configured with: bench's WorkerSetup plus the
peers' statements; unpickling it in a client imports this module (which registers the
steps) and hands the statements over.

Each peer sends its own statements (peer_sql.py reads them out of its package) exactly
as its worker does, committing where its worker commits; what a peer's library does in
Python around them (serializing, retries, signals) is not measured.
"""

from __future__ import annotations

import random
import secrets
import time
import uuid
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from agentddl.checks.bench.paths import Workload
from agentddl.checks.bench.work import STEPS, Client, LostClaim, Steps
from agentddl.checks.bench.worker import WorkerSetup

STATEMENTS: dict[str, str] = {}  # "<peer>.<statement>" -> SQL, in every client process
PGMQ_QUEUE = "agentddl_bench"
PGMQ_VISIBILITY_SECONDS = 30  # a read message is hidden this long unless deleted
PROCRASTINATE_TASK = "agentddl_bench.task"
LANGGRAPH_CHANNEL = "messages"  # the channel each put writes a new version of (its blob)
SAVES_PER_COMMIT = 100  # building a thread to read: its checkpoints in batches (bench's figure)


@dataclass(frozen=True)
class PeerSetup(WorkerSetup):
    """bench's WorkerSetup plus the peers' statements ((key, SQL) pairs)."""

    statements: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        STATEMENTS.update(self.statements)

    def __reduce__(self) -> tuple[type[PeerSetup], tuple[Any, ...]]:
        """Unpickled through __init__, so __post_init__ registers the statements."""
        return type(self), tuple(getattr(self, f.name) for f in fields(self))


# --- procrastinate: fetch one job, COMMIT; finish it (succeeded), COMMIT ---------------


def _procrastinate_worker(client: Client) -> int:
    """A registered worker, as a procrastinate worker starts (untimed)."""
    row = client.conn.execute(STATEMENTS["procrastinate.register_worker"]).fetchone()
    client.commit()
    if row is None:
        raise LostClaim("procrastinate_register_worker_v1 returned no worker")
    return int(row["worker_id"])


def _procrastinate(client: Client, worker_id: int) -> bool:
    job = client.conn.execute(
        STATEMENTS["procrastinate.fetch_job"], {"queues": None, "worker_id": worker_id}
    ).fetchone()
    client.commit()
    if job is None or job["id"] is None:
        return False
    client.conn.execute(
        STATEMENTS["procrastinate.finish_job"],
        {"job_id": job["id"], "status": "succeeded", "delete_job": False},
    )
    client.commit()
    return True


# --- pgmq: read one message with a visibility timeout, COMMIT; delete it, COMMIT ------


def _pgmq(client: Client, state: Any) -> bool:
    message = client.conn.execute(
        STATEMENTS["pgmq.read"], (PGMQ_QUEUE, PGMQ_VISIBILITY_SECONDS, 1)
    ).fetchone()
    client.commit()
    if message is None:
        return False
    deleted = client.conn.execute(STATEMENTS["pgmq.delete"], (PGMQ_QUEUE, message["msg_id"])).fetchone()
    if deleted is None or not deleted["delete"]:
        raise LostClaim("pgmq.delete deleted nothing")
    client.commit()
    return True


# --- langgraph-checkpoint-postgres: put a checkpoint; read a thread's latest ----------


@dataclass
class Thread:
    """One client's langgraph thread: the last checkpoint put and its channel version."""

    thread_id: str
    last_id: str | None = None
    version: str | None = None
    step: int = 0


def _thread(client: Client) -> Thread:
    return Thread(f"agentddl-bench-{client.slot}-{secrets.token_hex(4)}")


def put_checkpoint(client: Client, thread: Thread) -> None:
    """What PostgresSaver.put sends for a step that changed one channel: the channel's new
    value as a blob (bench's checkpoint payload, the profile's checkpoint size), then the
    checkpoint row naming its version; binary parameters, as its cursors use."""
    thread.step += 1
    # checkpoint ids sort by time as langgraph's uuid6 ids do; versions as its channels make them
    checkpoint_id = str(uuid.UUID(int=(time.time_ns() << 64) | (client.slot << 32) | thread.step))
    version = f"{thread.step:032}.0.{random.random():.16f}"
    payload = client.payloads[client.turn % len(client.payloads)]
    client.turn += 1
    checkpoint = {
        "v": 4,
        "id": checkpoint_id,
        "ts": datetime.now(UTC).isoformat(),
        "channel_values": {},
        "channel_versions": {LANGGRAPH_CHANNEL: version},
        "versions_seen": {"agent": {LANGGRAPH_CHANNEL: thread.version}} if thread.version else {},
        "updated_channels": [LANGGRAPH_CHANNEL],
    }
    metadata = {"source": "loop", "step": thread.step, "parents": {}}
    with client.conn.cursor(binary=True) as cursor:
        blob = (thread.thread_id, "", LANGGRAPH_CHANNEL, version, "json", payload.encode())
        cursor.executemany(STATEMENTS["langgraph.upsert_checkpoint_blobs_sql"], [blob])
        cursor.execute(
            STATEMENTS["langgraph.upsert_checkpoints_sql"],
            (thread.thread_id, "", checkpoint_id, thread.last_id, Jsonb(checkpoint), Jsonb(metadata)),
        )
    thread.last_id, thread.version = checkpoint_id, version


def _langgraph_put(client: Client, thread: Thread) -> bool:
    put_checkpoint(client, thread)
    client.commit()
    return True


def _langgraph_read_thread(client: Client) -> Thread:
    """A thread of --read-depth checkpoints (bench's read run has as many), put in batches."""
    thread = _thread(client)
    for n in range(client.read_depth):
        put_checkpoint(client, thread)
        if (n + 1) % SAVES_PER_COMMIT == 0:
            client.commit()
    client.commit()
    return thread


def _langgraph_read(client: Client, thread: Thread) -> bool:
    """PostgresSaver.get_tuple without a checkpoint id: the thread's latest checkpoint with
    its channel values (the blobs), binary results as its cursors ask."""
    with client.conn.cursor(binary=True) as cursor:
        row = cursor.execute(STATEMENTS["langgraph.select_latest"], (thread.thread_id, "")).fetchone()
    if row is None or row["checkpoint_id"] != thread.last_id or not row["channel_values"]:
        raise LostClaim("the latest-checkpoint read did not return the thread's newest checkpoint")
    client.commit()
    return True


def _nothing(client: Client, state: Any) -> None:
    return None


PEER_STEPS = {
    "peer_procrastinate": Steps(_procrastinate_worker, _procrastinate, _nothing),
    "peer_pgmq": Steps(lambda client: None, _pgmq, _nothing),
    "peer_langgraph_put": Steps(_thread, _langgraph_put, _nothing),
    "peer_langgraph_read": Steps(_langgraph_read_thread, _langgraph_read, _nothing),
}
STEPS.update(PEER_STEPS)

PROCRASTINATE = Workload(
    "peer_procrastinate",
    "procrastinate: fetch + finish",
    "fetch_job (procrastinate_fetch_job_v2), COMMIT; finish_job (succeeded), COMMIT",
    2,
)
PGMQ = Workload(
    "peer_pgmq",
    "pgmq: read + delete",
    f"pgmq.read (vt {PGMQ_VISIBILITY_SECONDS} s, qty 1), COMMIT; pgmq.delete, COMMIT",
    2,
)
LANGGRAPH_PUT = Workload(
    "peer_langgraph_put",
    "langgraph: put",
    "UPSERT_CHECKPOINT_BLOBS_SQL (the checkpoint payload) + UPSERT_CHECKPOINTS_SQL, COMMIT",
    1,
)
LANGGRAPH_READ = Workload(
    "peer_langgraph_read",
    "langgraph: latest checkpoint",
    "SELECT_SQL + get_tuple's latest filter on a thread of --read-depth checkpoints, COMMIT",
    1,
)
PEER_WORKLOADS = (PROCRASTINATE, PGMQ, LANGGRAPH_PUT, LANGGRAPH_READ)
QUEUE_PEERS = (PROCRASTINATE.name, PGMQ.name)
