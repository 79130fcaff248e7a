"""Figures (not a test): `python tests/benchmarks/hot_state_wal.py [--runs 20] [--rounds 120]`
(`make bench-hot-state`).

What the hot projection saves PostgreSQL: WAL bytes per heartbeat of a heartbeat-heavy
workload, with `hot_state.store: none` and with `redis`. `--runs` runs are claimed
(`claim_run`, the profile's lease); then every round each run reports progress once (a
heartbeat every `--beat-seconds` of the workload's clock):

- none: the `heartbeat` query in its own transaction (an UPDATE of the attempt that is
  never HOT: `lease_expires_at` is indexed);
- redis: the generated redis/hot_state.py's `Holder.progress` (Lua `fenced_update` in
  Redis) and, when due on its cadence (a third of the lease), the same `heartbeat` query.

The workload's clock is simulated (each round is `--beat-seconds` of it), so a run of the
default 60 s lease needs no minutes of waiting; PostgreSQL's leases are real (they last the
lease from the real now()). WAL is read two ways around each mode: pg_stat_wal.wal_bytes
(and wal_records) and the insert LSN difference. An embedded PostgreSQL (fsync and
full_page_writes off: scratch settings; full-page images would add to the PostgreSQL-only
mode, which dirties pages far more often) with autovacuum off on the tables, and an
embedded redis-server.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg import sql
from psycopg.rows import dict_row

from agentddl.checks.db import connect, open_server
from agentddl.checks.db.hot_runtime import load_hot_module
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.redis_server import open_redis, redis_client
from agentddl.checks.db.runtime import Runtime
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import Profile, load_default_profile

TABLES = ("runs", "attempts")


@dataclass
class Figures:
    mode: str
    heartbeats: int
    durable_renewals: int
    wal_bytes: int  # pg_stat_wal
    wal_records: int
    lsn_bytes: int  # pg_current_wal_insert_lsn() difference
    seconds: float

    @property
    def per_heartbeat(self) -> float:
        return self.wal_bytes / self.heartbeats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs held at once")
    parser.add_argument("--rounds", type=int, default=120, help="heartbeats per run")
    parser.add_argument("--beat-seconds", type=float, default=1.0, help="workload clock per round")
    parser.add_argument("--pg-version", type=int, default=16)
    args = parser.parse_args(argv)
    try:
        return _bench(args)
    except AgentDDLError as error:
        print(f"hot_state_wal: {error}", file=sys.stderr)
        return 2


def _bench(args: argparse.Namespace) -> int:
    base = load_default_profile()
    with open_server(version=args.pg_version) as server, open_redis() as redis:
        found = []
        for store in ("none", "redis"):
            hot_state = base.hot_state.model_copy(update={"store": store})
            profile = base.model_copy(update={"hot_state": hot_state})
            with server.scratch_database() as dsn:
                found.append(_measure(derive(profile), dsn, redis.url, args))
        print(_report(found, base, args, server.version))
    off, on = found
    return 0 if off.per_heartbeat >= 5 * on.per_heartbeat else 1


def _measure(model: SchemaModel, dsn: str, redis_url: str, args: argparse.Namespace) -> Figures:
    with connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        for table in TABLES:
            conn.execute(
                sql.SQL("ALTER TABLE {} SET (autovacuum_enabled = off)").format(
                    sql.Identifier(model.schema, table)
                )
            )
    with connect(dsn, row_factory=dict_row) as conn:
        runtime = Runtime(model, conn)
        claims = _claim(model, conn, runtime, args.runs)
        beat = _hot_beats(model, conn, runtime, claims, redis_url, args) if _hot(model) else None
        before, started = _wal(conn), time.perf_counter()
        renewals = 0
        for _ in range(args.rounds):
            for n, claim in enumerate(claims):
                renewals += beat(n) if beat else _durable(conn, runtime, claim, model)
        seconds = time.perf_counter() - started
        after = _wal(conn)
    mode = "redis" if _hot(model) else "none"
    heartbeats = args.rounds * len(claims)
    return Figures(
        mode,
        heartbeats,
        renewals,
        after["wal_bytes"] - before["wal_bytes"],
        after["wal_records"] - before["wal_records"],
        after["lsn"] - before["lsn"],
        seconds,
    )


def _hot(model: SchemaModel) -> bool:
    return model.profile.hot_state.store == "redis"


def _claim(model: SchemaModel, conn: Any, runtime: Runtime, count: int) -> list[dict[str, Any]]:
    tenant = uuid.uuid4()
    conn.execute(
        sql.SQL("INSERT INTO {} (tenant_id, name) VALUES (%s, 'bench')").format(
            sql.Identifier(model.schema, "tenants")
        ),
        [tenant],
    )
    for n in range(count):
        runtime.call(
            "start_run",
            tenant_id=tenant,
            run_key=f"bench-{n}",
            parent_run_id=None,
            kind="bench",
            input="{}",
            priority=0,
            trace_id=None,
        )
    conn.commit()
    claims = []
    for _ in range(count):
        token = uuid.uuid4().hex
        claim = runtime.call(
            "claim_run",
            worker_id="bench",
            lease_token=token,
            lease_seconds=model.profile.lease.duration,
        )
        conn.commit()
        claims.append({**claim, "lease_token": token})
    return claims


def _durable(conn: Any, runtime: Runtime, claim: dict[str, Any], model: SchemaModel) -> int:
    """The `heartbeat` query in its own transaction, as a worker runs it."""
    renewed = runtime.call(
        "heartbeat",
        tenant_id=claim["tenant_id"],
        run_id=claim["run_id"],
        fencing_token=claim["fencing_token"],
        lease_token=claim["lease_token"],
        lease_seconds=model.profile.lease.duration,
    )
    conn.commit()
    if renewed is None:
        raise AgentDDLError("a heartbeat lost its lease: the bench ran longer than the lease")
    return 1


def _hot_beats(
    model: SchemaModel, conn: Any, runtime: Runtime, claims: list[dict[str, Any]], url: str, args: Any
) -> Any:
    """A beat function for run n: the generated module's Holder.progress, on a simulated
    clock that moves one beat per round (the last run of a round moves it)."""
    module = load_hot_module(model)
    state = module.HotState(redis_client(url))
    clock = [0.0]
    renewals = [0]

    def holder(claim: dict[str, Any]) -> Any:
        def renew() -> bool:
            renewals[0] += _durable(conn, runtime, claim, model)
            return True

        return state.hold(module.Claim.from_row(claim, claim["lease_token"]), renew, clock=lambda: clock[0])

    holders = [holder(claim) for claim in claims]
    progress = [0] * len(claims)

    def beat(n: int) -> int:
        before = renewals[0]
        progress[n] = (progress[n] + 1) % 100
        if holders[n].progress("working", progress[n]) != "ok":
            raise AgentDDLError("a holder lost its run")
        if n == len(claims) - 1:
            clock[0] += args.beat_seconds
        return renewals[0] - before

    return beat


def _wal(conn: Any) -> dict[str, int]:
    """pg_stat_wal (flushed from this backend first) and the insert LSN."""
    conn.execute("SELECT pg_stat_force_next_flush()") if conn.info.server_version >= 150000 else None
    conn.commit()
    time.sleep(0.05)
    row = conn.execute(
        "SELECT wal_bytes::bigint AS wal_bytes, wal_records, "
        "pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint AS lsn FROM pg_stat_wal"
    ).fetchone()
    conn.commit()
    return {key: int(row[key]) for key in ("wal_bytes", "wal_records", "lsn")}


def _report(found: list[Figures], profile: Profile, args: argparse.Namespace, version: int) -> str:
    off, on = found
    lines = [
        f"PostgreSQL {version}, lease {profile.lease.duration} s, {args.runs} runs x {args.rounds} "
        f"heartbeats, one every {args.beat_seconds:g} s of the workload's clock",
        f"{'hot_state':<10} {'heartbeats':>10} {'PG writes':>9} {'WAL bytes':>10} {'records':>8} "
        f"{'LSN bytes':>10} {'WAL B/heartbeat':>15} {'seconds':>8}",
    ]
    for f in found:
        lines.append(
            f"{f.mode:<10} {f.heartbeats:>10} {f.durable_renewals or f.heartbeats:>9} {f.wal_bytes:>10} "
            f"{f.wal_records:>8} {f.lsn_bytes:>10} {f.per_heartbeat:>15.1f} {f.seconds:>8.2f}"
        )
    ratio = off.per_heartbeat / on.per_heartbeat if on.per_heartbeat else float("inf")
    lines.append(f"WAL per heartbeat: {ratio:.1f}x less with hot_state.store: redis (needs >= 5x)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
