"""The fence of the optional parts' worker writes: a CTE that locks the caller's live row
if the caller holds its lease (fenced_run), and the doc line that says so."""

from __future__ import annotations

from agentddl.generator.render.queries.base import Ctx
from agentddl.generator.render.queries.history import fenced_run


def fence_cte(c: Ctx) -> str:
    """WITH fence: the caller's live row, if the caller holds its lease (fenced_run)."""
    columns = f"{c.cols('q', 'run_id')}, q.attempt_no, q.fencing_token, q.worker_id"
    return f"WITH fence AS (\n    SELECT {columns}\n    " + fenced_run(c).replace("\n", "\n    ") + "\n)"


def fenced_doc(what: str) -> str:
    return f"{what}, fenced: a stale or forged writer, or a run no longer running, gets no row."
