"""Deliberately weakened schemas and queries, so each prove scenario is shown to fail.

A Weakening takes one guarantee away, the way a careless migration or a hand edit of
queries.sql would: DDL run after the schema is installed, and/or edits to named queries
of the rendered queries.sql. An edit names its query and the exact text it removes or
replaces; if that text is not in the query (the generator changed), applying it fails
instead of silently proving an intact schema "broken".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import psycopg
from psycopg import sql

from agentddl.checks.db.install import install_schema
from agentddl.generator.model import SchemaModel
from agentddl.generator.render.queries import render_queries


@dataclass(frozen=True)
class Edit:
    query: str  # the named query it changes
    old: str  # text in that query (every occurrence is replaced); a pattern if regex
    new: str = ""
    regex: bool = False


@dataclass(frozen=True)
class Weakening:
    name: str
    scenario: str  # the scenario that must report it broken
    expect: tuple[str, ...] = ()  # counts of which one at least must be > 0 (the right reason)
    ddl: tuple[str, ...] = ()  # run after install; {schema} is the schema
    edits: tuple[Edit, ...] = ()

    def install(self, model: SchemaModel, dsn: str) -> str:
        """Install the schema into `dsn`, weaken it; return the (weakened) queries.sql."""
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, model)
            for statement in self.ddl:
                conn.execute(sql.SQL(statement).format(schema=sql.Identifier(model.schema)))
        return edit_queries(render_queries(model), self.edits)


def edit_queries(text: str, edits: tuple[Edit, ...]) -> str:
    blocks = re.split(r"(?m)^(?=-- name: )", text)
    for edit in edits:
        index = next(i for i, b in enumerate(blocks) if re.match(rf"-- name: {edit.query}\b", b))
        found = re.search(edit.old, blocks[index], re.S) if edit.regex else edit.old in blocks[index]
        if not found:
            raise AssertionError(f"weakening: {edit.old!r} is not in query {edit.query}")
        if edit.regex:
            blocks[index] = re.sub(edit.old, edit.new, blocks[index], flags=re.S)
        else:
            blocks[index] = blocks[index].replace(edit.old, edit.new)
    return "".join(blocks)


def _guards_off(*edits: tuple[str, str]) -> tuple[Edit, ...]:
    return tuple(Edit("claim_run", old, new) for old, new in edits)


# The claim's recheck in its UPDATE of the live row: the fencing token it read (every
# claim bumps it), and the row still visible.
RECHECK = "        AND q.fencing_token = k.fencing_token\n"
STILL_VISIBLE = "        AND q.visible_at <= now()\n"


CLAIM_BROKEN = ("double_claims", "duplicate_effects")
NO_ONE_ACTIVE = "DROP INDEX {schema}.attempts_one_active_key"
# claim_run without what keeps a second worker off a run, per strategy, and the
# one-active-attempt index dropped: a claim race must see double claims.
CLAIM_GUARDS_OFF = {
    "skip_locked": Weakening(
        "claim without SKIP LOCKED, recheck or one-active index",
        "claim_race",
        CLAIM_BROKEN,
        (NO_ONE_ACTIVE,),
        _guards_off(("    FOR UPDATE SKIP LOCKED\n", ""), (RECHECK, "")),
    ),
    "optimistic": Weakening(
        "claim without compare-and-set or one-active index",
        "claim_race",
        CLAIM_BROKEN,
        (NO_ONE_ACTIVE,),
        _guards_off((RECHECK, ""), (STILL_VISIBLE, "")),
    ),
    "advisory": Weakening(
        "claim without advisory lock, compare-and-set or one-active index",
        "claim_race",
        CLAIM_BROKEN,
        (NO_ONE_ACTIVE,),
        _guards_off(
            ("pg_try_advisory_xact_lock(hashtextextended(o.run_id::text, 0))", "true"),
            (RECHECK, ""),
            (STILL_VISIBLE, ""),
        ),
    ),
    "lease": Weakening(
        "lease claim without one-active index, attempt key or run recheck",
        "claim_race",
        CLAIM_BROKEN,
        (
            NO_ONE_ACTIVE,
            # attempt notes (model.notes) reference the key; their FK goes first
            "ALTER TABLE IF EXISTS {schema}.attempt_notes"
            " DROP CONSTRAINT IF EXISTS attempt_notes_attempt_fkey",
            "ALTER TABLE {schema}.attempts DROP CONSTRAINT attempts_pkey",
        ),
        _guards_off(
            ("        AND q.fencing_token = a.fencing_token - 1\n" + STILL_VISIBLE, ""),
        ),
    ),
}

# aiosql refuses a declared parameter the query no longer uses: a removed check keeps
# its parameter, in a condition that is always true.
LEASE_CHECK = "q.lease_token_hash = sha256(convert_to(CAST(:lease_token AS text), 'UTF8'))"
ANY_LEASE = "CAST(:lease_token AS text) IS NOT NULL"
HOLDER_CHECK = r"EXISTS \(SELECT FROM .*?'UTF8'\)\)\)"  # complete_operation's lease-token check
# the whole fence on the live row: a stale writer's lease token alone would refuse it too
FENCE = (
    r"q\.fencing_token = CAST\(:fencing_token AS bigint\)"
    r"\s+AND q\.lease_token_hash = sha256\(.*?'UTF8'\)\)"
)
ALWAYS_FENCED = "CAST(:fencing_token AS bigint) IS NOT NULL"
ANY_TENANT = "CAST(:tenant_id AS text) IS NOT NULL AND "
NO_TENANT = (
    Edit("get_run", "r.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("latest_checkpoint", "k.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("run_events", "e.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("run_operations", "o.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("save_checkpoint", "q.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("append_event", "q.tenant_id = :tenant_id AND ", ANY_TENANT),
    Edit("heartbeat", "q.tenant_id = :tenant_id AND ", ANY_TENANT),
)
RLS_TABLES = ("tenants", "runs", "run_queue", "attempts", "checkpoints", "events", "operations", "outbox")
# The four guarantees issue 14 added, each with its guard removed; proven on every lock
# strategy (the row-level security ones on the row-level security profile).
FORGED_LEASE = Weakening(
    "lease-token check removed from the history and operation writes",
    "forged_lease",
    ("forged_writes_accepted",),
    edits=(
        Edit("save_checkpoint", LEASE_CHECK, ANY_LEASE),
        Edit("append_event", LEASE_CHECK, ANY_LEASE),
        Edit("reserve_operation", LEASE_CHECK, ANY_LEASE),
        Edit("complete_operation", HOLDER_CHECK, ANY_LEASE, regex=True),
    ),
)
PARTS_FORGED_LEASE = Weakening(  # issue 15: the model parts' fenced writes
    "lease-token check removed from the node, approval, note and step writes",
    "forged_lease",
    ("forged_writes_accepted",),
    edits=tuple(
        Edit(name, LEASE_CHECK, ANY_LEASE)
        for name in ("start_node", "request_approval", "append_attempt_note", "record_step")
    ),
)
POISON_UNBOUNDED = Weakening(
    "delivery attempts unbounded: no dead-letter state",
    "poison_message",
    ("poison_not_dead_lettered", "poison_tried_past_limit"),
    edits=(
        Edit("relay_claim", "m.delivery_attempts >= m.max_attempts AS spent", "false AS spent"),
        Edit(
            "fail_delivery",
            "dead_at = CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END",
            "dead_at = NULL",
        ),
    ),
)
NO_BACKOFF = Weakening(
    "a refused delivery is retried at once (no backoff)",
    "poison_message",
    ("backoff_ignored",),
    edits=(
        Edit(
            "fail_delivery",
            r"ELSE now\(\) \+ .*? END\n",
            "ELSE now() + 0 * CAST(:backoff_seconds AS integer) * interval '1 second' END\n",
            regex=True,
        ),
    ),
)
APPROVAL_TWICE = Weakening(
    "an approval decided again after it was decided (no pending check)",
    "approval_once",
    ("double_decisions",),
    edits=(Edit("decide_approval", "AND ap.status = 'pending'", "AND true"),),
)
SESSION_TENANT = Weakening(
    "the tenant set for the session, not the transaction",
    "tenant_isolation",
    ("pooled_session_leaks",),
    edits=(Edit("set_tenant", "AS text), true)", "AS text), false)"),),
)
OWNER_BYPASSES_RLS = Weakening(
    "row-level security not forced on the tables' owner",
    "tenant_isolation",
    ("owner_leaks",),
    tuple(f"ALTER TABLE {{schema}}.{table} NO FORCE ROW LEVEL SECURITY" for table in RLS_TABLES),
)

WEAKENINGS = (
    Weakening(
        "one-active-attempt index dropped",
        "claim_race",
        ("second_active_attempt_accepted",),
        (NO_ONE_ACTIVE,),
    ),
    Weakening(
        "claims take a lapsed run over only a day after its lease ran out (a reaper someone must run)",
        "crash_mid_step",
        ("stuck_runs",),
        edits=(
            Edit(
                "claim_run",
                "q.state = 'running' AND q.attempt_no < q.max_attempts",
                "q.state = 'running' AND q.attempt_no < q.max_attempts"
                " AND q.visible_at < now() - interval '1 day'",
            ),
        ),
    ),
    Weakening(
        "a claim's lease a day long, whatever lease_seconds asks",
        "crash_mid_step",
        ("stuck_runs",),
        edits=(
            Edit(
                "claim_run",
                "now() + CAST(:lease_seconds AS integer) * interval '1 second'",
                "now() + CAST(:lease_seconds AS integer) * interval '1 day'",
            ),
        ),
    ),
    Weakening(
        "fencing and lease-token checks removed from history and operation writes",
        "stale_writer",
        ("stale_writes_accepted",),
        edits=(
            Edit("save_checkpoint", FENCE, f"{ALWAYS_FENCED} AND {ANY_LEASE}", regex=True),
            Edit("append_event", FENCE, f"{ALWAYS_FENCED} AND {ANY_LEASE}", regex=True),
            Edit("reserve_operation", FENCE, f"{ALWAYS_FENCED} AND {ANY_LEASE}", regex=True),
            Edit("complete_operation", "o.fencing_token = CAST(:fencing_token AS bigint)", ALWAYS_FENCED),
            Edit("complete_operation", HOLDER_CHECK, ANY_LEASE, regex=True),
        ),
    ),
    Weakening(  # issue 20: the counter is the fence's; taken without it, a stale writer appends
        "event sequence number allocated without the fence",
        "stale_writer",
        ("stale_writes_accepted",),
        edits=(Edit("append_event", FENCE, f"{ALWAYS_FENCED} AND {ANY_LEASE}", regex=True),),
    ),
    Weakening(
        "idempotency unique key dropped",
        "idempotency",
        ("duplicate_effects",),
        (
            "ALTER TABLE {schema}.operations DROP CONSTRAINT operations_pkey",
            "CREATE INDEX operations_key_idx ON {schema}.operations (tenant_id, idempotency_key)",
        ),
        (
            Edit(
                "reserve_operation",
                r"ON CONFLICT \(tenant_id, idempotency_key\) DO UPDATE.*?(?=RETURNING)",
                "ON CONFLICT DO NOTHING\n",
                regex=True,
            ),
        ),
    ),
    Weakening(
        "input hash not compared",
        "idempotency",
        ("conflicts_missed",),
        edits=(
            Edit(
                "reserve_operation",
                "o.input_hash = CAST(:input_hash AS bytea) AS same_input",
                "true AS same_input",
            ),
        ),
    ),
    Weakening(
        "outbox acknowledged when claimed, before delivery",
        "outbox",
        ("lost_outbox",),
        edits=(
            Edit(
                "relay_claim",
                "delivery_attempts = m.delivery_attempts + 1\n",
                "delivery_attempts = m.delivery_attempts + 1, delivered_at = now()\n",
            ),
        ),
    ),
    Weakening(
        "a crashed relay's claim never lapses",
        "outbox",
        ("lost_outbox",),
        edits=(Edit("relay_claim", "OR m.claimed_until < now()", "OR false"),),
    ),
    Weakening(
        "tenant predicate removed from reads and fenced writes",
        "tenant_isolation",
        ("probe_leaks",),
        edits=NO_TENANT,
    ),
    Weakening(
        "outbox messages no longer tied to a run of their tenant",
        "tenant_isolation",
        ("probe_leaks",),
        ("ALTER TABLE {schema}.outbox DROP CONSTRAINT outbox_run_fkey",),
    ),
    Weakening(
        "tenant deletion restricted where the profile says cascade",
        "tenant_isolation",
        ("deletion_mismatches",),
        (
            "ALTER TABLE {schema}.runs DROP CONSTRAINT runs_tenant_fkey",
            "ALTER TABLE {schema}.runs ADD CONSTRAINT runs_tenant_fkey FOREIGN KEY (tenant_id) "
            "REFERENCES {schema}.tenants (tenant_id) ON DELETE RESTRICT",
        ),
    ),
    Weakening(  # nothing to isolate is not isolation: it must not be reported held
        "claim_run that never claims (no history to probe, nothing to delete)",
        "tenant_isolation",
        ("targets_without_history", "deletion_untested"),
        edits=(
            Edit("claim_run", "WHERE q.visible_at <= now()\n", "WHERE q.visible_at <= now() AND false\n"),
        ),
    ),
    Weakening(
        "version check removed from transition_run",
        "version_races",
        ("stale_writes_accepted",),
        edits=(
            Edit(
                "transition_run",
                "r.version = CAST(:expected_version AS bigint)",
                "CAST(:expected_version AS bigint) IS NOT NULL",
            ),
        ),
    ),
    Weakening(
        "transition guard trigger dropped",
        "version_races",
        ("forbidden_accepted",),
        ("DROP TRIGGER runs_transition_guard ON {schema}.runs",),
    ),
)

# On the row-level security profile: the policies switched off.
RLS_OFF = Weakening(
    "row-level security disabled",
    "tenant_isolation",
    ("raw_sql_leaks",),
    tuple(f"ALTER TABLE {{schema}}.{table} DISABLE ROW LEVEL SECURITY" for table in RLS_TABLES),
)
