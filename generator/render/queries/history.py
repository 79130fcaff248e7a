"""Checkpoints and events: fenced appends, and the reads that page through them.

Both tables are partitioned by run_created_at; every per-run query carries it (the run's
created_at, returned by start_run and claim_run) so only one partition is touched.
"""

from __future__ import annotations

from agentddl.generator.render.queries.base import Ctx, Query, returning, where
from agentddl.generator.render.queries.live import fenced_live


def own_columns(c: Ctx, table: str, *, without: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A table's columns in model order, less the tenant column (c.cols adds it) and `without`."""
    skip = {c.tenant, *without}
    return tuple(col.name for col in c.model.table(table).columns if col.name not in skip)


def history_queries(c: Ctx) -> tuple[Query, ...]:
    return (
        save_checkpoint(c),
        latest_checkpoint(c),
        append_event(c),
        run_events(c),
        events_since(c),
        events_in_window(c),
    )


def fenced_run(c: Ctx) -> str:
    """FROM the caller's live row (alias q), if it is running under their fencing token
    and the caller holds its lease token (checked by its hash: the fencing token orders
    claims, the lease token proves the caller is the claim's holder; a guessed or stale
    one matches nothing). FOR SHARE keeps a takeover (the claim's UPDATE of the row) out
    until this write commits. The live row first is every query's lock order."""
    return f"FROM {c.t('run_queue')} AS q\n" + where(*fenced_live(c)) + "\nFOR SHARE OF q"


def counted(c: Ctx, counter: str) -> str:
    """WITH fence: the caller's live row, fenced, its `counter` taken (+ 1) by the same
    UPDATE: the next sequence number, allocated under the fence. Never max(seq) + 1."""
    return f"""WITH fence AS (
    UPDATE {c.t("run_queue")} AS q
    SET {counter} = q.{counter} + 1
    {where(*fenced_live(c), pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at, q.fencing_token, q.{counter} AS seq
)"""


def fenced_params(c: Ctx) -> list[str]:
    return [*c.tenant_param(), "run_id uuid", "fencing_token bigint", "lease_token text"]


# The payload parsed once and serialized once (size and hash both read the text): OFFSET 0
# keeps the planner from pulling the subqueries up and repeating the casts per use.
PAYLOAD_ONCE = (
    "(SELECT d.doc, d.doc::text AS body\n"
    "      FROM (SELECT CAST(:payload AS jsonb) AS doc OFFSET 0) AS d OFFSET 0) AS p"
)


def save_checkpoint(c: Ctx) -> Query:
    columns = c.names(*own_columns(c, "checkpoints", without=("created_at",)))
    sql = f"""{counted(c, "checkpoint_seq")}
INSERT INTO {c.t("checkpoints")} AS k
    ({columns})
SELECT {c.cols("f", "run_id")}, f.run_created_at, f.seq, CAST(:parent_seq AS integer),
    f.fencing_token, CAST(:state_schema_version AS integer),
    CAST(:next_nodes AS text[]), CAST(:completed_nodes AS text[]), CAST(:metadata AS jsonb),
    p.doc, CAST(:payload_ref AS text),
    coalesce(octet_length(p.body), CAST(:payload_bytes AS integer)),
    coalesce(sha256(convert_to(p.body, 'UTF8')), CAST(:payload_sha256 AS bytea))
FROM fence AS f,
    {PAYLOAD_ONCE}
{returning("k.seq", "k.run_created_at", "k.created_at")}"""
    doc = (
        "Insert the next checkpoint of the caller's run, fenced: a writer whose fencing",
        "token is not the live row's, who does not hold its lease token, or whose run is",
        "not running inserts nothing and gets no row.",
        "seq is the live row's checkpoint counter, taken by the fenced UPDATE itself",
        "(parent_seq: the caller's last, e.g. last_checkpoint_seq from claim_run).",
        "run_created_at comes from the live row, so partition and FK always match.",
        "metadata: what resuming needs besides the state (a pending interrupt or approval,",
        "the code version, the model/tool configuration reference), or null.",
        "Payload inline (payload, then size and sha256 are computed here from one parse",
        "and one serialization of it) or out of line (payload_ref with payload_bytes and",
        "payload_sha256).",
        f"index: {c.path('save_checkpoint').index}; the live row by run_queue_pkey",
        "returns: seq, run_created_at, created_at; or no row (stale or forged writer)",
    )
    return Query(
        "save_checkpoint",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *fenced_params(c),
                "parent_seq integer|null",
                "state_schema_version integer",
                "next_nodes text[]",
                "completed_nodes text[]",
                "metadata jsonb|null (pending interrupt or approval, code version, config reference)",
                "payload jsonb|null",
                "payload_ref text|null",
                "payload_bytes integer|null",
                "payload_sha256 bytea|null",
            ]
        ),
    )


def latest_checkpoint(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('k', *own_columns(c, 'checkpoints'))}\nFROM {c.t('checkpoints')} AS k\n"
        + where(c.match("k", "run_id"), "k.run_created_at = CAST(:run_created_at AS timestamptz)")
        + "\nORDER BY k.seq DESC\nLIMIT 1"
    )
    doc = (
        "The newest checkpoint of a run (resume point). run_created_at prunes to the",
        "run's partition.",
        f"index: {c.path('latest_checkpoint').index} (backward scan)",
    )
    return Query(
        "latest_checkpoint",
        "^",
        doc,
        sql,
        params=tuple([*c.tenant_param(), "run_id uuid", "run_created_at timestamptz"]),
    )


def append_event(c: Ctx) -> Query:
    columns = c.names("run_id", "run_created_at", "seq", "kind", "actor", "policy_version", "payload")
    sql = f"""{counted(c, "event_seq")}
INSERT INTO {c.t("events")} AS ev
    ({columns})
SELECT {c.cols("f", "run_id")}, f.run_created_at, f.seq, CAST(:kind AS text),
    CAST(:actor AS text), CAST(:policy_version AS text), CAST(:payload AS jsonb)
FROM fence AS f
{returning("ev.event_id", "ev.seq")}"""
    doc = (
        "Append the next event of the caller's run, fenced like save_checkpoint. seq is",
        "the live row's event counter, taken by the fenced UPDATE itself: concurrent",
        "appends (and the claim's and the endings' own events) queue on the row and",
        "never collide; nothing reads max(seq).",
        f"index: {c.path('append_event').index}; the live row by run_queue_pkey",
        "returns: event_id, seq; or no row (stale or forged writer)",
    )
    return Query(
        "append_event",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *fenced_params(c),
                "kind text",
                "actor text",
                "policy_version text|null",
                "payload jsonb (redacted, size-bounded)",
            ]
        ),
    )


def run_events(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('e', *own_columns(c, 'events'))}\nFROM {c.t('events')} AS e\n"
        + where(
            c.match("e", "run_id"),
            "e.run_created_at = CAST(:run_created_at AS timestamptz)",
            "e.seq > CAST(:after_seq AS integer)",
        )
        + "\nORDER BY e.seq\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "A run's history in order, a page at a time (after_seq 0 for the first page).",
        f"index: {c.path('run_events').index}",
    )
    return Query(
        "run_events",
        "",
        doc,
        sql,
        params=tuple(
            [
                *c.tenant_param(),
                "run_id uuid",
                "run_created_at timestamptz",
                "after_seq integer",
                "limit integer",
            ]
        ),
    )


def events_since(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('e', *own_columns(c, 'events'))}\nFROM {c.t('events')} AS e\n"
        + where(*c.tenant_filter("e"), "e.event_id > CAST(:after_id AS bigint)")
        + "\nORDER BY e.event_id\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "Delta sync: events after the last id the reader has seen, in id order.",
        "Ids are taken at insert and transactions commit out of order, so an id below",
        "the cursor can still appear for a moment: re-read a short trailing window",
        "(or dedupe by run_id, seq) when a gap must never be missed.",
        f"index: {c.path('events_since').index}",
    )
    return Query(
        "events_since", "", doc, sql, params=tuple([*c.tenant_param(), "after_id bigint", "limit integer"])
    )


def events_in_window(c: Ctx) -> Query:
    end = "CAST(:window_end AS timestamptz)"
    index = next(i for i in c.model.table("events").indexes if i.name == c.path("events_in_window").index)
    ordered = index.method == "btree"  # a BRIN index finds the window's blocks, never an order
    sql = (
        f"SELECT {c.cols('e', *own_columns(c, 'events'))}\nFROM {c.t('events')} AS e\n"
        + where(
            *c.tenant_filter("e"),
            "e.created_at >= CAST(:window_start AS timestamptz)",
            f"e.created_at < {end}",
            f"e.run_created_at < {end}",
        )
        + ("\nORDER BY e.created_at, e.event_id" if ordered else "")
    )
    order = (
        ("In created_at order (then event_id), as the B-tree on created_at returns them.",)
        if ordered
        else (
            "Unordered: at this volume the time index is BRIN, which finds the window's block",
            "ranges but returns no order, and sorting a window's events would grow with the",
            "window (and spill); order on the consumer's side if it matters.",
        )
    )
    doc = (
        "Events created in [window_start, window_end), for export. An event is never",
        "older than its run, so run_created_at < window_end also prunes partitions.",
        *order,
        "Keep windows small: the result is not paged.",
        f"index: {index.name}",
    )
    return Query(
        "events_in_window",
        "",
        doc,
        sql,
        params=tuple([*c.tenant_param(), "window_start timestamptz", "window_end timestamptz"]),
    )
