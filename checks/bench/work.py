"""What one client does in each workload, through the profile's named queries.

Every hot path runs only queries of queries.sql, through `db.runtime.Runtime` pinned to
the app role and the client's tenant (a production worker's pooled connection), on a
connection of its own, committing where a worker commits. The floors run plain SQL on a
table pair of bench's own. Each workload has a `prepare` (before timing: e.g. claim the
run a heartbeat renews), an `op` (timed; True when it did an operation, False when a
claim found no run) and a `finish` (after timing: give claimed runs back).
"""

from __future__ import annotations

import json
import random
import secrets
import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.bench.paths import CLAIM_BATCH
from agentddl.checks.db.runtime import Runtime
from agentddl.generator.profile import Profile

Row = dict[str, Any]
RESULT = '{"ok": true}'
EVENT_PAYLOAD = '{"tokens": 512, "tool": "search", "ok": true}'
SWEEP_BATCH = 100
SAVES_PER_COMMIT = 100  # building a read run: its checkpoints in batches
PAYLOAD_VARIANTS = 8
PREPARE_CLAIM_TRIES = 300


class LostClaim(Exception):
    """A fenced write changed nothing: this client's claim is gone (a bench bug or a
    lease that ran out: both make the figures wrong, so the segment fails)."""


@dataclass
class Claim:
    scope: dict[str, Any]  # the tenant argument of tenant-scoped queries ({} single-tenant)
    run_id: Any
    run_created_at: Any
    fencing_token: int
    lease_token: str
    event_seq: int  # the run's last event seq
    checkpoint_seq: int  # the run's last checkpoint seq

    @property
    def fence(self) -> dict[str, Any]:
        """The arguments every fenced write of this claim presents."""
        return {
            **self.scope,
            "run_id": self.run_id,
            "fencing_token": self.fencing_token,
            "lease_token": self.lease_token,
        }


class Client:
    """One client's connection, its pinned runtime and what its operations send."""

    def __init__(
        self, runtime: Runtime, slot: int, floor_schema: str, read_depth: int, lease_seconds: int
    ) -> None:
        self.runtime, self.slot, self.read_depth = runtime, slot, read_depth
        self.conn: psycopg.Connection[Row] = runtime.connection
        self.profile: Profile = runtime.profile
        self.lease_seconds = lease_seconds
        self.worker_id = f"agentddl-bench-{slot}"
        self.payloads = checkpoint_payloads(int(self.profile.volume.checkpoint_bytes), slot)
        self.inline = int(self.profile.volume.checkpoint_bytes) <= int(self.profile.payload.inline_limit)
        self.turn = 0
        schema = sql.Identifier(floor_schema)
        self.floor_update = sql.SQL(
            "UPDATE {}.floor_row SET n = n + 1, touched_at = now() WHERE id = %s"
        ).format(schema)
        self.floor_insert = sql.SQL("INSERT INTO {}.floor_log (client, note) VALUES (%s, 'commit')").format(
            schema
        )

    def call(self, name: str, **params: Any) -> Any:
        return self.runtime.call(name, **params)

    def commit(self) -> None:
        self.conn.commit()

    def floor_commit(self) -> None:
        self.conn.execute(self.floor_update, (self.slot,))
        self.conn.execute(self.floor_insert, (self.slot,))
        self.conn.commit()

    def claim(self) -> Claim | None:
        token = secrets.token_hex(16)
        row = self.call("claim_run", **self._claim_args(token))
        self.commit()
        return None if row is None else self._claimed(row, token)

    def claim_batch(self, size: int) -> list[Claim]:
        """claim_runs of up to `size` runs under one lease token, committed."""
        token = secrets.token_hex(16)
        rows = self.call("claim_runs", **self._claim_args(token), batch_size=size)
        self.commit()
        return [self._claimed(row, token) for row in rows]

    def _claim_args(self, token: str) -> dict[str, Any]:
        column = self.profile.tenancy.column
        home = {column: self.runtime.tenant} if column else {}  # a claim under row-level security takes it
        lease = {"lease_token": token, "lease_seconds": self.lease_seconds}
        return {**home, "worker_id": self.worker_id, **lease}

    def _claimed(self, row: Row, token: str) -> Claim:
        column = self.profile.tenancy.column
        return Claim(
            {column: row[column]} if column else {},
            row["run_id"],
            row["run_created_at"],
            row["fencing_token"],
            token,
            row["last_event_seq"] or 0,
            row["last_checkpoint_seq"] or 0,
        )

    def claim_one(self) -> Claim:
        """A claimed run to prepare with; a claim that lost a race (the lease strategy's
        claims return no row then) is tried again."""
        for _ in range(PREPARE_CLAIM_TRIES):
            claim = self.claim()
            if claim is not None:
                return claim
            time.sleep(0.01)
        raise LostClaim(f"claim_run found no queued run to prepare with in {PREPARE_CLAIM_TRIES} tries")

    def complete(self, claim: Claim) -> None:
        if self.call("complete_attempt", **claim.fence, result=RESULT) is None:
            raise LostClaim("complete_attempt changed nothing")
        self.commit()

    def complete_batch(self, claims: list[Claim]) -> None:
        """complete_attempts of every claim of a batch in one statement, committed."""
        column = self.profile.tenancy.column
        # Per run tenants, or one (a batch claimed under row-level security is one tenant's):
        # the query takes the one its form declares and ignores the other.
        tenants: dict[str, Any] = {}
        if column:
            tenants = {column: self.runtime.tenant, f"{column}s": [c.scope[column] for c in claims]}
        done = self.call(
            "complete_attempts",
            **tenants,
            run_ids=[claim.run_id for claim in claims],
            fencing_tokens=[claim.fencing_token for claim in claims],
            lease_tokens=[claim.lease_token for claim in claims],
            results=[RESULT] * len(claims),
        )
        if len(list(done)) != len(claims):
            raise LostClaim("complete_attempts completed fewer runs than the batch claimed")
        self.commit()

    def append_event(self, claim: Claim) -> None:
        claim.event_seq += 1
        row = self.call(
            "append_event",
            **claim.fence,
            kind="step",
            actor="agent",
            policy_version=None,
            payload=EVENT_PAYLOAD,
        )
        if row is None:
            raise LostClaim("append_event inserted nothing")

    def save_checkpoint(self, claim: Claim) -> None:
        claim.checkpoint_seq += 1
        seq = claim.checkpoint_seq
        payload = self.payloads[self.turn % len(self.payloads)]
        self.turn += 1
        row = self.call(
            "save_checkpoint",
            **claim.fence,
            parent_seq=seq - 1 or None,
            state_schema_version=1,
            next_nodes=[f"node_{seq + 1}"],
            completed_nodes=[f"node_{seq}"],
            metadata=None,
            **self._payload(payload, claim, seq),
        )
        if row is None:
            raise LostClaim("save_checkpoint inserted nothing")

    def _payload(self, payload: str, claim: Claim, seq: int) -> dict[str, Any]:
        if self.inline:
            return {"payload": payload, "payload_ref": None, "payload_bytes": None, "payload_sha256": None}
        return {
            "payload": None,
            "payload_ref": f"s3://agentddl-bench/{claim.run_id}/{seq}",
            "payload_bytes": len(payload),
            "payload_sha256": secrets.token_bytes(32),
        }


def checkpoint_payloads(size: int, slot: int) -> list[str]:
    """A few JSON agent states of about `size` bytes: a conversation of words drawn with
    a skew (text that compresses as real transcripts do, not random bytes)."""
    rng = random.Random(f"agentddl-bench-{slot}")
    vocabulary = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    found = []
    for variant in range(PAYLOAD_VARIANTS):
        messages: list[dict[str, str]] = []
        state: dict[str, Any] = {"variant": variant, "messages": messages, "memory": {"facts": 12}}
        while len(json.dumps(state)) < size:
            words = rng.choices(vocabulary, weights, k=40)
            messages.append({"role": rng.choice(("user", "assistant", "tool")), "content": " ".join(words)})
        found.append(json.dumps(state))
    return found


# --- the workloads: prepare (untimed) -> op (timed, repeated) -> finish (untimed) -------


def _none(client: Client) -> Any:
    return None


def _nothing(client: Client, state: Any) -> None:
    return None


def _floor(client: Client, state: Any) -> bool:
    client.floor_commit()
    return True


def _floor2(client: Client, state: Any) -> bool:
    client.floor_commit()
    client.floor_commit()
    return True


def _claim_complete(client: Client, state: Any) -> bool:
    claim = client.claim()
    if claim is None:
        return False
    client.complete(claim)
    return True


def _claim_batch(client: Client, state: Any) -> bool:
    claims = client.claim_batch(CLAIM_BATCH)
    if not claims:
        return False
    client.complete_batch(claims)
    return True


def _step(client: Client, state: Any) -> bool:
    claim = client.claim()
    if claim is None:
        return False
    client.append_event(claim)
    client.save_checkpoint(claim)
    client.commit()
    client.complete(claim)
    return True


def _heartbeat(client: Client, claim: Claim) -> bool:
    renewed = client.call(
        "heartbeat",
        **claim.scope,
        run_id=claim.run_id,
        fencing_token=claim.fencing_token,
        lease_token=claim.lease_token,
        lease_seconds=client.lease_seconds,
    )
    if renewed is None:
        raise LostClaim("heartbeat renewed nothing")
    client.commit()
    return True


def _save(client: Client, claim: Claim) -> bool:
    client.save_checkpoint(claim)
    client.commit()
    return True


def _read_run(client: Client) -> Claim:
    """A run with `read_depth` checkpoints (saved by the named query, in batches), done."""
    claim = client.claim_one()
    for n in range(client.read_depth):
        client.save_checkpoint(claim)
        if (n + 1) % SAVES_PER_COMMIT == 0:
            client.commit()
    client.commit()
    client.complete(claim)
    return claim


def _read(client: Client, claim: Claim) -> bool:
    row = client.call(
        "latest_checkpoint", **claim.scope, run_id=claim.run_id, run_created_at=claim.run_created_at
    )
    if row is None or row["seq"] != claim.checkpoint_seq:
        raise LostClaim("latest_checkpoint did not return the run's newest checkpoint")
    client.commit()
    return True


def _sweep(client: Client, state: Any) -> bool:
    client.call("expire_leases", batch_size=SWEEP_BATCH)
    client.commit()
    return True


@dataclass(frozen=True)
class Steps:
    prepare: Callable[[Client], Any]
    op: Callable[[Client, Any], bool]
    finish: Callable[[Client, Any], None]


STEPS: dict[str, Steps] = {
    "floor": Steps(_none, _floor, _nothing),
    "floor2": Steps(_none, _floor2, _nothing),
    "claim_complete": Steps(_none, _claim_complete, _nothing),
    "claim_batch": Steps(_none, _claim_batch, _nothing),
    "step": Steps(_none, _step, _nothing),
    "heartbeat": Steps(Client.claim_one, _heartbeat, Client.complete),
    "checkpoint_save": Steps(Client.claim_one, _save, Client.complete),
    "checkpoint_read": Steps(_read_run, _read, _nothing),
    "sweep": Steps(_none, _sweep, _nothing),
}
