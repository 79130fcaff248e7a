"""A run's effective status, derived from its active attempt's lease at read time.

runs.status says what the last writer decided; a worker that crashed decided nothing
more, so a run it held still says 'running' until the next claim takes it over. The
effective status reads the lease instead: 'running' only while the active attempt's
lease is live; 'claimable' once it ran out (the next claim_run takes the run over), or
'failed' when it was the run's last attempt. Expiry never has to rewrite a row for a
reader to see the truth (expire_leases is optional housekeeping).

An expression the queries inline, not a view: a view would pin the types of the run
columns it reads, so every later migration changing one would have to drop and re-create
it (and under row-level security a view runs as its owner before PostgreSQL 15).
"""

from __future__ import annotations


def effective_status(run: str, attempt: str, indent: int = 4) -> str:
    """The effective status of run `run`, given its active attempt `attempt` (joined
    with LEFT JOIN ... AND status = 'active': NULL when there is none), as a CASE whose
    continuation lines are indented `indent` spaces."""
    pad = " " * indent
    return (
        f"CASE\n{pad}    WHEN {run}.status <> 'running' THEN {run}.status\n"
        f"{pad}    WHEN {attempt}.lease_expires_at > now() THEN 'running'\n"
        f"{pad}    WHEN {run}.attempt_count < {run}.max_attempts THEN 'claimable'\n"
        f"{pad}    ELSE 'failed'\n{pad}END"
    )


def active_attempt_join(run_key: tuple[str, ...], schema: str, run: str, attempt: str) -> str:
    """LEFT JOIN the run's active attempt (at most one: attempts_one_active_key)."""
    keys = " AND ".join(f"{run}.{c} = {attempt}.{c}" for c in run_key)
    return f"LEFT JOIN {schema}.attempts AS {attempt}\n    ON {keys} AND {attempt}.status = 'active'"
