"""PLAN.md's "Changes from the previous profile": the profile changes, what to do before
and after, each step in order with its lock, what it reads, how long and how to undo it.
`agentddl diff --format markdown` prints the same section."""

from __future__ import annotations

from agentddl.generator.delta.types import Delta, Refusal
from agentddl.generator.render import markdown as md

TITLE = "## 6. Changes from the previous profile"


def changes_section(delta: Delta, intro: str) -> str:
    parts = [TITLE, "", intro, "", md.bullets(md.code(c) for c in delta.changes) or "- (none)"]
    if delta.notes:
        parts += ["", "Before and after:", "", md.bullets(delta.notes)]
    parts += ["", steps_table(delta)]
    for refusal in delta.refusals:
        parts += ["", refusal_markdown(refusal)]
    if delta.steps:
        parts += ["", _ORDER]
    return "\n".join(parts)


_ORDER = (
    "Order: expand (new objects beside the old ones), validate (each constraint in its own "
    "transaction), switch, contract (the old objects go last), so every step leaves a schema "
    "the running code works with. A step that fails leaves the ones before it in place: fix the "
    "cause and run `alembic upgrade head` again (each step can run twice). `alembic downgrade -1` "
    "runs the steps back to the previous profile's schema the same online way."
)


def steps_table(delta: Delta) -> str:
    if not delta.steps:
        return "No schema change: the revision records the new profile (queries.sql and PLAN.md change)."
    rows = [
        [
            str(number),
            step.phase + (" (2nd revision)" if step.handover == "contract" else ""),
            step.summary,
            f"{step.lock} on {', '.join(md.code(t) for t in step.tables)}" if step.lock else "none",
            "scans" if step.work == "scan" else "no (no rewrite)",
            step.duration,
            step.rollback,
        ]
        for number, step in enumerate(delta.steps, start=1)
    ]
    header = ["#", "phase", "step", "lock", "reads the table", "duration", "rollback"]
    return md.table(header, rows)


def refusal_markdown(refusal: Refusal) -> str:
    return "\n".join(
        [
            f"**Refused: {md.code(refusal.change)}** — {refusal.reason}. Plan:",
            "",
            md.numbered(refusal.plan),
        ]
    )
