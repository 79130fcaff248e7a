"""Attempt notes' queries (profile model.notes, seed 002): an attempt appends short notes
for whoever runs next; a run's notes are read back newest first, a page at a time."""

from __future__ import annotations

from agentddl.generator.model.parts import NOTE_KINDS
from agentddl.generator.render.queries.base import Ctx, Query, returning, where
from agentddl.generator.render.queries.history import fenced_params, fenced_run

NOTE_READ = ("run_id", "attempt_no", "note_no", "kind", "body", "created_at")


def note_queries(c: Ctx) -> tuple[Query, ...]:
    return (append_attempt_note(c), run_attempt_notes(c)) if c.model.parts.notes else ()


def append_attempt_note(c: Ctx) -> Query:
    notes = c.t("attempt_notes")
    next_no = (
        f"(SELECT coalesce(max(p.note_no), 0) + 1 FROM {notes} AS p\n"
        f"     {where(c.join('p', 'q', 'run_id'), 'p.attempt_no = q.attempt_no', pad=4)})"
    )
    sql = f"""INSERT INTO {notes} AS n
    ({c.names("run_id", "attempt_no", "note_no", "kind", "body")})
SELECT {c.cols("q", "run_id")}, q.attempt_no,
    {next_no},
    CAST(:note_kind AS text), CAST(:body AS text)
{fenced_run(c)}
{returning("n.attempt_no", "n.note_no", "n.created_at")}"""
    doc = (
        f"Append a note ({' | '.join(NOTE_KINDS)}) to the caller's active attempt, fenced like",
        "append_event: a stale or forged writer, or a run no longer running, gets no row.",
        "The note's number is the attempt's last + 1; two appends of one attempt at once",
        "cannot both take it (the second gets a unique violation: retry it).",
        f"index: {c.path('append_attempt_note').index}",
        "returns: attempt_no, note_no, created_at; or no row",
    )
    params = (*fenced_params(c), f"note_kind text ({' | '.join(NOTE_KINDS)})", "body text (short, bounded)")
    return Query("append_attempt_note", "<!", doc, sql, params=params)


def run_attempt_notes(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('n', *NOTE_READ)}\nFROM {c.t('attempt_notes')} AS n\n"
        + where(c.match("n", "run_id"))
        + "\nORDER BY n.attempt_no DESC, n.note_no DESC\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "A run's notes, the latest attempt's newest first, a page of :limit: what the next",
        "attempt reads before it starts (bodies are short by the table's check).",
        f"index: {c.path('run_attempt_notes').index} (backward)",
    )
    params = (*c.tenant_param(), "run_id uuid", "limit integer")
    return Query("run_attempt_notes", "", doc, sql, params=params)
