"""Checkpoints and events: fenced appends, and the reads that page through them.

Both tables are partitioned by run_created_at; every per-run query carries it (the run's
created_at, returned by start_run and claim_run) so only one partition is touched.
"""

from __future__ import annotations

from agentddl.generator.render.queries.base import LEASE_HASH, Ctx, Query, returning, where


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
    """FROM the caller's active attempt and its run, if the run is running under their
    fencing token and the caller holds the attempt's lease token (checked by its hash: the
    fencing token orders claims, the lease token proves the caller is the claim's holder;
    a guessed or stale one matches nothing). The locks keep a takeover out until this
    write commits: the attempt
    first (KEY SHARE, which a heartbeat does not need and a cancel or reaper's FOR UPDATE
    waits for or skips), then the run (SHARE, which a claim's token bump waits for).
    Attempt before run is every query's lock order: a step that writes, then ends its
    attempt in the same transaction, cannot deadlock with a cancel or a reaper."""
    return (
        f"FROM {c.t('attempts')} AS a\n"
        f"JOIN {c.t('runs')} AS r ON {c.join('r', 'a', 'run_id')}\n"
        + where(
            c.match("a", "run_id"),
            "a.status = 'active'",
            "a.fencing_token = CAST(:fencing_token AS bigint)",
            f"a.lease_token_hash = {LEASE_HASH}",
            "r.fencing_token = a.fencing_token",
            "r.status = 'running'",
        )
        + "\nFOR KEY SHARE OF a FOR SHARE OF r"
    )


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
    fenced = fenced_run(c).replace("FROM ", f"FROM {PAYLOAD_ONCE},\n    ", 1)
    sql = f"""INSERT INTO {c.t("checkpoints")} AS k
    ({columns})
SELECT {c.cols("r", "run_id")}, r.created_at, CAST(:seq AS integer), CAST(:parent_seq AS integer),
    r.fencing_token, CAST(:state_schema_version AS integer),
    CAST(:next_nodes AS text[]), CAST(:completed_nodes AS text[]),
    p.doc, CAST(:payload_ref AS text),
    coalesce(octet_length(p.body), CAST(:payload_bytes AS integer)),
    coalesce(sha256(convert_to(p.body, 'UTF8')), CAST(:payload_sha256 AS bytea))
{fenced}
{returning("k.seq", "k.run_created_at", "k.created_at")}"""
    doc = (
        "Insert checkpoint :seq of the caller's run, fenced: a writer whose fencing token",
        "is not the run's, who does not hold the attempt's lease token, or whose run is",
        "not running inserts nothing and gets no row.",
        "run_created_at comes from the run row, so partition and FK always match.",
        "seq is the caller's (last_checkpoint_seq from claim_run + 1); the primary key",
        "rejects a duplicate. Payload inline (payload, then size and sha256 are computed",
        "here from one parse and one serialization of it) or out of line (payload_ref",
        "with payload_bytes and payload_sha256).",
        f"index: {c.path('save_checkpoint').index}",
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
                "seq integer",
                "parent_seq integer|null",
                "state_schema_version integer",
                "next_nodes text[]",
                "completed_nodes text[]",
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
    sql = f"""INSERT INTO {c.t("events")} AS ev
    ({columns})
SELECT {c.cols("r", "run_id")}, r.created_at, CAST(:seq AS integer), CAST(:kind AS text),
    CAST(:actor AS text), CAST(:policy_version AS text), CAST(:payload AS jsonb)
{fenced_run(c)}
{returning("ev.event_id", "ev.seq")}"""
    doc = (
        "Append event :seq of the caller's run, fenced like save_checkpoint. seq is the",
        "caller's (last_event_seq from claim_run + 1, counted by the one live attempt);",
        "the primary key rejects a duplicate. A max(seq) + 1 here would race between",
        "concurrent appends and hide the writer's mistake.",
        f"index: {c.path('append_event').index}",
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
                "seq integer",
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
