"""A run's effective status, derived from its active attempt's lease at read time.

runs.status says what the last writer decided; a worker that crashed decided nothing
more, so a run it held still says 'running' until the next claim takes it over. The
effective status reads the lease instead: 'running' only while the active attempt's
lease is live; 'claimable' once it ran out (the next claim_run takes the run over), or
'failed' when it was the run's last attempt. Expiry never has to rewrite a row for a
reader to see the truth (expire_leases is optional housekeeping).
"""

from __future__ import annotations

from agentddl.generator.model.blocks import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import SqlBlock

VIEW = "run_states"
EFFECTIVE_STATUSES = ("queued", "running", "claimable", "waiting", "succeeded", "failed", "cancelled")
# The run's own columns the view shows (payloads stay out: they are unbounded reading).
VIEW_COLUMNS = (
    "run_id",
    "created_at",
    "run_key",
    "parent_run_id",
    "kind",
    "version",
    "priority",
    "wake_at",
    "attempt_count",
    "max_attempts",
    "updated_at",
    "finished_at",
)


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


def view(s: Scope) -> SqlBlock:
    """run_states: every run with its stored and effective status and its active
    attempt's lease, for monitoring and the health queries (the grants give it to the
    read-only role, not to the app: its own reads compute the same expression inline,
    under its own row-level security)."""
    q = quote(s.profile.schema_name)
    columns = [f"r.{c}" for c in s.keyed(*VIEW_COLUMNS)]
    columns += ["r.status AS stored_status", "a.attempt_no", "a.worker_id", "a.heartbeat_at"]
    columns += ["a.lease_expires_at", f"{effective_status('r', 'a')} AS status"]
    sql = (
        f"CREATE VIEW {q}.{VIEW} AS\nSELECT\n"
        + ",\n".join(f"    {c}" for c in columns)
        + f"\nFROM {q}.runs AS r\n{active_attempt_join(s.keyed('run_id'), q, 'r', 'a')};\n"
        f"COMMENT ON VIEW {q}.{VIEW} IS 'Runs with their effective status: running while the lease "
        "is live, claimable once it ran out, failed after the last attempt.'"
    )
    return SqlBlock(VIEW, sql, "effective run status derived from the lease at read time")
