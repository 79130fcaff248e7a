"""A run's effective status, derived from its live row's lease at read time.

runs.status says what the last writer decided; a worker that crashed decided nothing
more, so a run it held still says 'running' until the next claim takes it over. The
effective status reads the lease instead: 'running' only while the live row's lease
(visible_at) is in the future; 'claimable' once it ran out (the next claim_run takes the
run over), or 'failed' when it was the run's last attempt. Expiry never has to rewrite a
row for a reader to see the truth (expire_leases is optional housekeeping).

An expression the queries inline, not a view: a view would pin the types of the run
columns it reads, so every later migration changing one would have to drop and re-create
it (and under row-level security a view runs as its owner before PostgreSQL 15).
"""

from __future__ import annotations


def effective_status(run: str, live: str, indent: int = 4) -> str:
    """The effective status of run `run`, given its live row `live` (joined with LEFT
    JOIN: NULL once the run ended), as a CASE whose continuation lines are indented
    `indent` spaces."""
    pad = " " * indent
    return (
        f"CASE\n{pad}    WHEN {run}.status <> 'running' THEN {run}.status\n"
        f"{pad}    WHEN {live}.visible_at > now() THEN 'running'\n"
        f"{pad}    WHEN {run}.attempt_count < {run}.max_attempts THEN 'claimable'\n"
        f"{pad}    ELSE 'failed'\n{pad}END"
    )


def live_row_join(run_key: tuple[str, ...], schema: str, run: str, live: str) -> str:
    """LEFT JOIN the run's live row (at most one: run_queue_pkey)."""
    keys = " AND ".join(f"{run}.{c} = {live}.{c}" for c in run_key)
    return f"LEFT JOIN {schema}.run_queue AS {live}\n    ON {keys}"
