"""Side effects: idempotent operations and the transactional outbox."""

from __future__ import annotations

from agentddl.generator.render.queries.base import (
    BACKOFF_CAP,
    LEASE_HASH,
    Ctx,
    Query,
    backoff_sql,
    returning,
    where,
)
from agentddl.generator.render.queries.history import fenced_params, fenced_run

MESSAGE_READ = ("message_id", "run_id", "topic", "payload", "created_at", "available_at", "delivery_attempts")
DEAD_READ = ("message_id", "run_id", "topic", "created_at", "delivery_attempts", "last_error", "dead_at")


def effect_queries(c: Ctx) -> tuple[Query, ...]:
    return (
        reserve_operation(c),
        complete_operation(c),
        run_operations(c),
        enqueue_outbox(c),
        relay_claim(c),
        mark_delivered(c),
        fail_delivery(c),
        dead_letters(c),
        requeue_dead_letter(c),
    )


def reserve_operation(c: Ctx) -> Query:
    # fencing tokens count per run: another run's token 1 is not this run's
    owned = "(o.run_id = :run_id AND o.fencing_token = CAST(:fencing_token AS bigint)) AS owned"
    takeover = (
        "o.status = 'pending' AND o.run_id = EXCLUDED.run_id AND o.input_hash = EXCLUDED.input_hash\n"
        "        AND o.fencing_token < EXCLUDED.fencing_token"
    )
    values = ", ".join(
        [
            *(f"q.{t}" for t in c.keyed()),
            "CAST(:idempotency_key AS text)",
            "q.run_id",
            "CAST(:input_hash AS bytea)",
            "q.fencing_token",
        ]
    )
    sql = f"""INSERT INTO {c.t("operations")} AS o
    ({c.names("idempotency_key", "run_id", "input_hash", "fencing_token")})
SELECT {values}
{fenced_run(c)}
ON CONFLICT ({c.names("idempotency_key")}) DO UPDATE
SET fencing_token = CASE
    WHEN {takeover}
    THEN EXCLUDED.fencing_token ELSE o.fencing_token END
{
        returning(
            "o.run_id",
            "o.status",
            "o.result",
            "o.input_hash = CAST(:input_hash AS bytea) AS same_input",
            "(o.xmax = 0) AS inserted",
            owned,
            "o.created_at",
            "o.completed_at",
        )
    }"""
    doc = (
        "Reserve an idempotent side effect under (tenant, idempotency_key), fenced: only",
        "the attempt holding the run's fencing token and lease token may reserve (else no",
        "row).",
        "input_hash = sha256 of the caller's canonical input bytes (32 bytes, computed by",
        "the caller). Read the row as: inserted -> new, do the effect; not same_input ->",
        "conflict, the key was used with another input; status succeeded/failed -> the",
        "earlier result; pending and owned -> an earlier attempt of this run died",
        "holding it, this attempt took it over (redo the effect with the same key);",
        "pending and not owned -> someone else (maybe another run) is doing it now.",
        "The DO UPDATE (a takeover, or a no-op) is what returns the existing row even",
        "when it was committed after this statement's snapshot.",
        f"index: {c.path('reserve_operation').index}",
        "returns: run_id, status, result, same_input, inserted, owned, created_at, completed_at",
    )
    return Query(
        "reserve_operation",
        "<!",
        doc,
        sql,
        params=tuple([*fenced_params(c), "idempotency_key text", "input_hash bytea"]),
    )


def complete_operation(c: Ctx) -> Query:
    holder = (
        f"EXISTS (SELECT FROM {c.t('attempts')} AS a\n"
        f"        WHERE {c.join('a', 'o', 'run_id')} AND a.fencing_token = o.fencing_token\n"
        f"            AND a.lease_token_hash = {LEASE_HASH})"
    )
    sql = (
        f"UPDATE {c.t('operations')} AS o\n"
        "SET status = CAST(:status AS text), result = CAST(:result AS jsonb), completed_at = now()\n"
        + where(
            c.match("o", "idempotency_key"),
            "o.run_id = CAST(:run_id AS uuid)",
            "o.status = 'pending'",
            "o.fencing_token = CAST(:fencing_token AS bigint)",
            holder,
        )
        + "\n"
        + returning("o.status", "o.completed_at")
    )
    doc = (
        "Record the effect's outcome (status succeeded or failed) and result, once, by the",
        "attempt that holds the reservation: its run and fencing token (tokens count per",
        "run, so the run is part of the fence) and that attempt's lease token, checked by",
        "its hash. The attempt may have lost its lease since: it did the effect, and the",
        "record keeps the next attempt from doing it again. Else no row.",
        f"index: {c.path('complete_operation').index}; the attempt by attempts_pkey",
        "returns: status, completed_at; or no row",
    )
    return Query(
        "complete_operation",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *c.tenant_param(),
                "idempotency_key text",
                "run_id uuid",
                "fencing_token bigint",
                "lease_token text",
                "status text",
                "result jsonb|null",
            ]
        ),
    )


def run_operations(c: Ctx) -> Query:
    columns = c.cols(
        "o",
        "idempotency_key",
        "run_id",
        "input_hash",
        "fencing_token",
        "status",
        "result",
        "created_at",
        "completed_at",
    )
    sql = (
        f"SELECT {columns}\nFROM {c.t('operations')} AS o\n"
        + where(c.match("o", "run_id"))
        + "\nORDER BY o.created_at, o.idempotency_key"
    )
    doc = (
        "A run's side effects, oldest first.",
        f"index: {c.path('run_operations').index}",
    )
    return Query("run_operations", "", doc, sql, params=tuple([*c.tenant_param(), "run_id uuid"]))


def enqueue_outbox(c: Ctx) -> Query:
    values = ", ".join(
        [*(f":{t}" for t in c.keyed()), ":run_id", "CAST(:topic AS text)", "CAST(:payload AS jsonb)"]
    )
    sql = (
        f"INSERT INTO {c.t('outbox')} AS m ({c.names('run_id', 'topic', 'payload')})\n"
        f"VALUES ({values})\n" + returning("m.message_id")
    )
    doc = (
        "Write a message in the same transaction as the state change it announces",
        "(e.g. after complete_attempt returned a row, before COMMIT): both commit or",
        "neither does. The relay delivers it at least once; consumers dedupe by message_id.",
        f"index: {c.path('enqueue_outbox').index}",
        "returns: message_id",
    )
    return Query(
        "enqueue_outbox",
        "$",
        doc,
        sql,
        params=tuple([*c.tenant_param(), "run_id uuid", "topic text", "payload jsonb (size-bounded)"]),
    )


def relay_claim(c: Ctx) -> Query:
    sql = f"""WITH due AS (
    SELECT {c.cols("m", "message_id")}, m.delivery_attempts >= m.max_attempts AS spent
    FROM {c.t("outbox")} AS m
    {
        where(
            *c.shard_filter("m"),
            "m.delivered_at IS NULL",
            "m.dead_at IS NULL",
            "m.available_at <= now()",
            "(m.claimed_until IS NULL OR m.claimed_until < now())",
            pad=4,
        )
    }
    ORDER BY m.available_at
    LIMIT CAST(:batch_size AS integer)
    FOR UPDATE SKIP LOCKED
),
buried AS (
    UPDATE {c.t("outbox")} AS m
    SET dead_at = now(), claimed_by = NULL, claimed_until = NULL,
        last_error = coalesce(m.last_error, 'the last attempt''s claim lapsed (the relay died delivering it)')
    FROM due AS d
    {where(*c.shard_filter("m"), c.join("m", "d", "message_id"), "d.spent", pad=4)}
    RETURNING m.message_id
),
claimed AS (
    UPDATE {c.t("outbox")} AS m
    SET claimed_by = CAST(:relay_id AS text),
        claimed_until = now() + CAST(:claim_seconds AS integer) * interval '1 second',
        delivery_attempts = m.delivery_attempts + 1
    FROM due AS d
    {where(*c.shard_filter("m"), c.join("m", "d", "message_id"), "NOT d.spent", pad=4)}
    RETURNING {c.cols("m", *MESSAGE_READ)}
)
SELECT {c.cols("k", *MESSAGE_READ)}
FROM claimed AS k
ORDER BY k.available_at, k.message_id"""
    doc = _relay_claim_doc(c)
    return Query(
        "relay_claim",
        "",
        doc,
        sql,
        params=tuple([*c.shard_param(), "relay_id text", "claim_seconds integer", "batch_size integer"]),
    )


def _relay_claim_doc(c: Ctx) -> tuple[str, ...]:
    return (
        "The relay claims up to :batch_size pending messages, oldest first, across",
        "tenants: not yet delivered nor dead-lettered, available, and unclaimed or with a",
        "lapsed claim (a crashed relay's messages come back once claim_seconds pass). A",
        "message whose attempts are spent (delivery_attempts = max_attempts) and whose",
        "last claim lapsed is dead-lettered here instead: a poison message that kills",
        "every relay that takes it is tried max_attempts times, not forever. SKIP LOCKED",
        "lets several relays share the queue.",
        *(
            [f"Distributed: one {c.tenant}'s messages (one shard); a relay walks its tenants."]
            if c.distributed
            else []
        ),
        f"index: {c.path('relay_claim').index}",
        "returns: the claimed messages",
    )


def mark_delivered(c: Ctx) -> Query:
    sql = f"UPDATE {c.t('outbox')} AS m\nSET delivered_at = now()\n" + where(
        c.match("m", "message_id"), "m.claimed_by = CAST(:relay_id AS text)", "m.delivered_at IS NULL"
    )
    doc = (
        "The relay acknowledges a delivery. Only the relay holding the claim can; a",
        "relay whose claim lapsed and was re-claimed by another updates nothing.",
        f"index: {c.path('mark_delivered').index}",
        "returns: the row count (1 delivered, 0 not yours)",
    )
    return Query(
        "mark_delivered", "!", doc, sql, params=tuple([*c.tenant_param(), "message_id uuid", "relay_id text"])
    )


def fail_delivery(c: Ctx) -> Query:
    spent = "m.delivery_attempts >= m.max_attempts"
    delay = backoff_sql("CAST(:backoff_seconds AS integer)", "m.delivery_attempts") + " * interval '1 second'"
    sql = (
        f"UPDATE {c.t('outbox')} AS m\n"
        "SET claimed_by = NULL, claimed_until = NULL,\n"
        "    last_error = left(CAST(:error AS text), 2000),\n"
        f"    dead_at = CASE WHEN {spent} THEN {c.now} END,\n"
        f"    available_at = CASE WHEN {spent} THEN m.available_at ELSE {c.later(delay)} END\n"
        + c.clock("FROM ")
        + ("\n" if c.distributed else "")
        + where(
            c.match("m", "message_id"),
            "m.claimed_by = CAST(:relay_id AS text)",
            "m.delivered_at IS NULL",
            "m.dead_at IS NULL",
        )
        + "\n"
        + returning("m.dead_at IS NOT NULL AS dead", "m.available_at", "m.delivery_attempts")
    )
    backoff = c.model.profile.outbox.backoff
    doc = c.clocked(
        "The relay reports a delivery that failed (the consumer refused it, or errored):",
        "the claim is released, and the message is tried again after a backoff",
        f"(backoff_seconds x 2^(delivery_attempts - 1), doubling at most {BACKOFF_CAP} times), or,",
        "once its attempts are spent, dead-lettered. Only the relay holding the claim can.",
        f"index: {c.path('fail_delivery').index}",
        "returns: dead, available_at (the next attempt), delivery_attempts; or no row (not yours)",
    )
    return Query(
        "fail_delivery",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *c.tenant_param(),
                "message_id uuid",
                "relay_id text",
                "error text (bounded, no payloads)",
                f"backoff_seconds integer (suggested {backoff}, the profile's outbox.backoff)",
            ]
        ),
    )


def dead_letters(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('m', *DEAD_READ)}\nFROM {c.t('outbox')} AS m\n"
        + where("m.dead_at IS NOT NULL")
        + "\nORDER BY m.dead_at, m.message_id\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "Dead-lettered messages across tenants, oldest first: what an operator looks at",
        "before fixing the consumer and requeueing (requeue_dead_letter) or deleting them.",
        f"index: {c.path('dead_letters').index}",
    )
    return Query("dead_letters", "", doc, sql, params=tuple(["limit integer"]))


def requeue_dead_letter(c: Ctx) -> Query:
    sql = (
        f"UPDATE {c.t('outbox')} AS m\n"
        "SET dead_at = NULL, delivery_attempts = 0, available_at = now()\n"
        + where(c.match("m", "message_id"), "m.dead_at IS NOT NULL")
        + "\n"
        + returning("m.message_id")
    )
    doc = (
        "Give a dead-lettered message a new round of max_attempts attempts, at once (after",
        "the consumer was fixed). last_error stays until the next failure.",
        f"index: {c.path('requeue_dead_letter').index}",
        "returns: message_id; or no row (not dead-lettered)",
    )
    return Query(
        "requeue_dead_letter",
        "$",
        doc,
        sql,
        params=tuple([*c.tenant_param(), "message_id uuid"]),
    )
