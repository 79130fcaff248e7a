"""Benchmark (not a test): what the capability check costs. Worker threads run a run's
life through the named queries (claim_run, append_event, save_checkpoint,
reserve_operation, complete_operation, complete_attempt, each transaction committed as
a worker commits it) with queries.sql as generated, and with the lease-token check taken
out of the history and operation writes (what they checked before issue 14), in
alternating rounds on one server and one database: the ratio of the two throughputs.

    python tests/benchmarks/lease_check_bench.py              (make bench-lease-check)
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import threading
import time
import uuid
from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.checks.db import connect, open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.runtime import Runtime, load_queries
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile
from agentddl.generator.render.queries import render_queries

LEASE_CHECK = "a.lease_token_hash = sha256(convert_to(CAST(:lease_token AS text), 'UTF8'))"
ANY_LEASE = "CAST(:lease_token AS text) IS NOT NULL"
HOLDER = re.compile(r"EXISTS \(SELECT FROM .*?'UTF8'\)\)\)", re.S)


def without_capability(text: str) -> str:
    """queries.sql with the history and operation writes fenced by the fencing token only."""
    blocks = re.split(r"(?m)^(?=-- name: )", text)
    for i, block in enumerate(blocks):
        if re.match(r"-- name: (save_checkpoint|append_event|reserve_operation)\b", block):
            blocks[i] = block.replace(LEASE_CHECK, ANY_LEASE)
        elif block.startswith("-- name: complete_operation"):
            blocks[i] = HOLDER.sub(ANY_LEASE, block)
    edited = "".join(blocks)
    assert text.count(LEASE_CHECK) - edited.count(LEASE_CHECK) == 4, "the generator changed: update the edits"
    return edited


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=12, help="per variant, alternating")
    parser.add_argument("--seconds", type=float, default=5.0, help="per round")
    parser.add_argument("--pg-version", type=int, default=None)
    parser.add_argument("--server", default=None)
    args = parser.parse_args(argv)
    profile = load_default_profile()
    version = args.pg_version or profile.engine.version
    model = derive(
        profile.model_copy(update={"engine": profile.engine.model_copy(update={"version": version})})
    )
    text = render_queries(model)
    variants = {"with the lease check": text, "fencing token only": without_capability(text)}
    rates: dict[str, list[float]] = {name: [] for name in variants}
    with open_server(args.server, prefer=version) as server, server.scratch_database() as dsn:
        with connect(dsn) as conn:
            install_schema(conn, model)
        tenant = uuid.uuid4()
        with connect(dsn) as conn:
            conn.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 'bench')", [tenant])
        for round_no in range(args.rounds):
            # ABBA: each pair runs in the opposite order of the last, so drift cancels
            order = list(variants.items()) if round_no % 2 == 0 else list(reversed(variants.items()))
            for name, queries in order:
                rate = one_round(dsn, model, load_queries(model, queries), tenant, args.threads, args.seconds)
                rates[name].append(rate)
                print(f"round {round_no + 1} {name:<22} {rate:8.1f} runs/s", flush=True)
    report(rates, server.version, args.threads)
    return 0


def one_round(
    dsn: str, model: SchemaModel, queries: Any, tenant: uuid.UUID, threads: int, seconds: float
) -> float:
    """Runs completed per second by `threads` workers in `seconds` (queued runs made first)."""
    with connect(dsn) as conn:
        conn.execute(
            "INSERT INTO agent.runs (tenant_id, kind, max_attempts) "
            "SELECT %s, 'bench', 1000 FROM generate_series(1, %s)",
            [tenant, int(threads * seconds * 150)],
        )
    stop = threading.Event()
    done: list[int] = []
    workers = [
        threading.Thread(target=_work, args=(dsn, model, queries, tenant, stop, done)) for _ in range(threads)
    ]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    with connect(dsn) as conn:
        conn.execute("DELETE FROM agent.runs WHERE kind = 'bench'")
    return sum(done) / elapsed


def _work(
    dsn: str, model: SchemaModel, queries: Any, tenant: uuid.UUID, stop: threading.Event, done: list[int]
) -> None:
    completed = 0
    with connect(dsn, autocommit=False, row_factory=dict_row) as conn:
        runtime = Runtime(model, conn, tenant=tenant, queries=queries)
        while not stop.is_set():
            completed += _one_run(runtime, tenant)
    done.append(completed)


def _one_run(rt: Runtime, tenant: uuid.UUID) -> int:
    token = uuid.uuid4().hex
    claim = rt.call("claim_run", worker_id="bench", lease_token=token, lease_seconds=60)
    rt.connection.commit()
    if claim is None:
        return 0
    fence = {"tenant_id": tenant, "run_id": claim["run_id"], "fencing_token": claim["fencing_token"]}
    fence["lease_token"] = token
    key = f"op-{claim['run_id']}"
    rt.call(
        "append_event",
        **fence,
        kind="step.done",
        actor="agent:bench",
        policy_version=None,
        payload=Jsonb({"n": 1}),
    )
    rt.call(
        "save_checkpoint",
        **fence,
        parent_seq=None,
        state_schema_version=1,
        next_nodes=[],
        completed_nodes=["a"],
        metadata=None,
        payload=Jsonb({"s": 1}),
        payload_ref=None,
        payload_bytes=None,
        payload_sha256=None,
    )
    rt.call("reserve_operation", **fence, idempotency_key=key, input_hash=key.encode().ljust(32, b"\0")[:32])
    rt.call("complete_operation", **fence, idempotency_key=key, status="succeeded", result=Jsonb({}))
    rt.connection.commit()
    done = rt.call("complete_attempt", **fence, result=Jsonb({}))
    rt.connection.commit()
    return int(done is not None)


def report(rates: dict[str, list[float]], version: int, threads: int) -> None:
    """Medians, and the median of each round's ratio (a pair ran back to back: the load
    of a shared machine moves both alike)."""
    (checked, checked_rates), (plain, plain_rates) = rates.items()
    a, b = statistics.median(checked_rates), statistics.median(plain_rates)
    paired = statistics.median(x / y for x, y in zip(checked_rates, plain_rates, strict=True))
    print(f"\nPostgreSQL {version}, {threads} worker threads, {len(checked_rates)} rounds each:")
    print(f"  {checked}: median {a:.1f} runs/s (claim + 4 step writes + complete)")
    print(f"  {plain}: median {b:.1f} runs/s")
    print(f"  ratio of medians {a / b:.3f}; median of the rounds' ratios {paired:.3f}")
    print(f"  cost of the capability check: {(1 - paired) * 100:+.1f}% of claim+complete throughput")


if __name__ == "__main__":
    sys.exit(main())
