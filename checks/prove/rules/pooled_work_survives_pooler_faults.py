"""ADP117 pooled-work-survives-pooler-faults: the guarantee the `pooler_restart` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.pooler_restart import SCENARIO


class PooledWorkSurvivesPoolerFaults(ProveRule):
    """Workers behind a transaction-mode pooler lose nothing when the pooler restarts or
    their server sessions are terminated.

    ## What it does
    Guarantees that when the workers reach the database through PgBouncer in transaction
    mode, a restart of the pooler (killed and started again on its port) or
    `pg_terminate_backend` on the server sessions behind it loses no acknowledged commit,
    does no acknowledged step twice, and leaves no run stuck once the cut-off attempts'
    leases lapse; a claim taken before the first fault is refused every fenced write. In
    the `pooler_restart` scenario prove starts a PgBouncer (one server session per worker)
    in front of the embedded server it started, points the workers at it (no server-side
    prepared statements: the pooler hands each transaction to any server session), and
    injects five faults in turn while they drain waves of runs: a pooler restart, a random
    half of the server sessions terminated. Workers reconnect and poll again: a claim and
    a read are safe to retry, and a write whose `COMMIT` was cut off is in doubt, found (or
    not) in the checkpoints by the next claim. Only a server prove starts itself gets a
    pooler: with `--dsn` or `--server` the scenario is not run.

    ## Why is this bad?
    A pooler restart (a deploy, a config reload gone wrong, an OOM kill) and a terminated
    session (an operator's `pg_terminate_backend`, an idle-session timeout) cut every
    worker off mid-transaction at once. A schema that keeps a run's state in session
    variables, advisory locks held across transactions or prepared statements breaks
    behind a transaction-mode pooler; a worker that retries a non-idempotent write, or
    journals an effect before its `COMMIT` returned, does a step twice.

    ## Example
    A worker that treats a cut-off `COMMIT` as done and goes on with the next step (or a
    claim that kept its lease in a session-level advisory lock) is reported:
    ```text
    error ADP117 [pooled-work-survives-pooler-faults] skip_locked/pooler_restart
      lost_acknowledged_steps=3: acknowledged steps that are not the run's checkpoint
      afterwards.
      fix: keep every lease, tenant and fence in the transaction's own statements ...
    ```

    ## Use instead
    Keep what a worker holds in rows (the lease token's hash, the fencing token), set the
    tenant per transaction (`set_config(..., true)`), disable server-side prepared
    statements behind a transaction-mode pooler (psycopg: `prepare_threshold=None`), and
    treat a cut-off `COMMIT` as unknown: reconnect, claim again, resume from the latest
    checkpoint.
    ```python
    conn.prepare_threshold = None  # psycopg 3, on a connection to the pooler
    ```

    ## References
    - https://www.pgbouncer.org/features.html
    - https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SIGNAL
    - https://www.psycopg.org/psycopg3/docs/advanced/prepare.html
    """

    code = "ADP117"
    name = "pooled-work-survives-pooler-faults"
    scenario = SCENARIO
    remedy = (
        "keep every lease, tenant and fence in the transaction's own statements (rows, set_config(..., "
        "true)), no server-side prepared statements behind the pooler, and treat a cut-off COMMIT as "
        "unknown: reconnect and resume from the latest checkpoint"
    )
