"""PLAN.md's failover runbook (the last section): what a promotion of a streaming
replica means for the schema's leases, fencing tokens, outbox and hot projection, with
a synchronous standby and with an asynchronous one, and the steps of a failover.

`agentddl prove --scenario failover` proves the synchronous case (ADP118) and measures
what the asynchronous one loses."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.render import markdown as md
from agentddl.generator.render.hot.layout import key_prefix

TITLE = "Failover runbook"


def failover_section(model: SchemaModel, number: int) -> str:
    """The section, numbered `number` (after every other section the profile has)."""
    return "\n\n".join(
        [
            f"## {number}. {TITLE}",
            "A promotion (the primary lost, a streaming standby promoted by Patroni, "
            "pg_auto_failover or `pg_promote()`) keeps exactly what the standby had received. "
            "With a synchronous standby (`synchronous_standby_names` on the primary, "
            "`synchronous_commit = on` or `remote_apply` for the workers' transactions) that is "
            "every commit a worker, the relay or a client was told about. With an asynchronous "
            "one, the commits of the last moments before the failure are gone, acknowledged "
            "or not: a standby *N* ms behind loses *N* ms of acknowledged steps. "
            "`agentddl prove --scenario failover` kills a primary mid-workload and promotes its "
            "replica: synchronous, nothing acknowledged is lost; `--replication async` reports "
            "the loss and the lag as broken (ADP118).",
            "### Before a failure: connect so that a promotion needs no redeploy",
            md.bullets(_before(model)),
            "### What a promotion means for the schema",
            md.table(["", "synchronous standby", "asynchronous standby"], _meaning(model)),
            "### Steps",
            md.numbered(_steps(model)),
        ]
    )


def _before(model: SchemaModel) -> list[str]:
    app = model.profile.role("app")
    return [
        "Workers, the relay and the housekeeping jobs connect with every host in one "
        "connection string and take the one that accepts writes: "
        "`host=db1,db2 port=5432,5432 dbname=... target_session_attrs=read-write` (libpq, "
        "psycopg, asyncpg), or through a pooler or address that follows the primary. On a "
        "lost connection they reconnect and retry for longer than a promotion takes.",
        "A statement the failure cut off is in doubt: it may have committed or not. A worker "
        "never assumes either: it re-reads the run (`current_attempt`, `latest_checkpoint`) "
        "and goes on from what the database says.",
        f"Commit synchronously where it matters: `ALTER ROLE {app} SET synchronous_commit = on` "
        "(or `remote_apply`, so a read on the standby sees the write), and promote only a "
        "standby that was `sync` in `pg_stat_replication` (Patroni's "
        "`synchronous_mode_strict`), never one that was `async` or `potential`.",
        "Keep the clocks of the primary and its standbys in sync (NTP): every lease is the "
        "database's `now()`, and after a promotion that is the new primary's clock.",
    ]


def _meaning(model: SchemaModel) -> list[list[str]]:
    lease = md.duration(model.profile.lease.duration)
    rows = [
        [
            "leases",
            f"A lease is `visible_at` on the live row, compared with `now()`: a lease granted "
            f"on the old primary lapses by the new primary's clock. The runs whose workers "
            f"died with the primary are taken over by `claim_run` at most {lease} later; live "
            "workers renew with `heartbeat` as before.",
            "The same, and a claim granted on the old primary but not replicated is gone: the "
            "run is as it was before that claim (queued, or held by the attempt before) and is "
            "claimed again.",
        ],
        [
            "checkpoints and steps",
            "Every acknowledged `save_checkpoint` and `append_event` is there: a run resumes "
            "where its worker was told it stood.",
            "Steps acknowledged but not replicated are gone: workers must resume each run from "
            "its latest checkpoint on the new primary (`latest_checkpoint`), so such a step, "
            "and its tool call, runs again. The `operations` rows of that window may be gone "
            "too: an external effect needs the tool's own idempotency key as well.",
        ],
        [
            "fencing tokens",
            "Unchanged: a worker whose lease lapsed during the failover presents an older "
            "`fencing_token` than the live row's and is refused; it must stop.",
            "A stale worker from before the promotion presents a token the new primary never "
            "saw (its claim was lost) or a lower one than the row's (its run was taken over): "
            "refused (zero rows). The new primary may hand the same token number to another "
            "worker, but never the same lease token: the old holder's writes still match "
            "nothing.",
        ],
        [
            "outbox",
            "Every enqueued message and every `mark_delivered` survives; delivery stays "
            "at-least-once as always.",
            "Messages of lost commits are gone (the steps that re-run enqueue them again); a "
            "message delivered before the failover whose `delivered_at` was lost is claimed "
            "and delivered again: relays and consumers dedupe by `message_id`.",
        ],
    ]
    if model.hot_state_in_redis:
        rows.append(
            [
                "Redis projection",
                f"PostgreSQL is the truth: `{key_prefix(model)}*` keys of runs the new primary "
                "ended or gave to another attempt are refused by fencing and expire; the next "
                "heartbeats rewrite the rest.",
                "The projection may show steps, holders or ends the new primary does not have: "
                "rebuild it from PostgreSQL (delete the run keys; holders write them again at "
                "their next heartbeat) and verify a run against PostgreSQL before acting on it.",
            ]
        )
    return rows


def _steps(model: SchemaModel) -> list[str]:
    lease = md.duration(model.profile.lease.duration)
    steps = [
        "Make sure the old primary is down and stays down (stopped, fenced off the network): "
        "two primaries accepting writes split every run's history.",
        "Promote the standby that is furthest ahead, a synchronous one when there is one "
        "(`SELECT pg_promote()`). With an asynchronous standby, note its "
        "`pg_last_wal_replay_lsn()` and the time of its last replayed commit "
        "(`pg_last_xact_replay_timestamp()`): the window before the failure that is lost.",
        "Workers and relays reconnect through the multi-host connection string; nothing else "
        f"to do: runs whose workers died are taken over within {lease}. Watch "
        "`health_expired_leases`, `health_stuck_runs` and `health_outbox_lag` come back down.",
        "Asynchronous only: list the runs with events or operations in the lost window "
        "(`events_in_window` on the new primary shows what survived) and check their "
        "external effects for duplicates; consumers dedupe redelivered messages by "
        "`message_id`.",
    ]
    if model.hot_state_in_redis:
        steps.append("Rebuild the Redis projection from PostgreSQL (above).")
    steps.append(
        "Rebuild the old primary as a standby of the new one (`pg_rewind`, or a fresh base "
        "backup) before it rejoins; never start it as a primary again."
    )
    return steps
