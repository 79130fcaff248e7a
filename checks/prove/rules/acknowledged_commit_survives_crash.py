"""ADP115 acknowledged-commit-survives-crash: the guarantee the `server_crash` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.server_crash import SCENARIO


class AcknowledgedCommitSurvivesCrash(ProveRule):
    """Every commit the server acknowledged survives a crash of the whole server, and the
    runs it cut off are taken over and finished.

    ## What it does
    Guarantees that a crash of the database server (every server process killed at once,
    as a power loss leaves it, then crash recovery) loses no acknowledged commit,
    duplicates no acknowledged step, leaves no run stuck once the crashed attempts' leases
    lapse, and refuses the fenced writes of a claim taken before the crash. In the
    `server_crash` scenario the workers drain runs of three steps while prove kills the
    server it started (SIGKILL to its process group) five times, a wave of runs started
    before each crash, and starts it again; the workers reconnect and go on. A worker
    journals a step or a completion only once its `COMMIT` returned. Only a server prove
    starts itself can be crashed: with `--dsn` or `--server` the scenario is not run.
    `agentddl prove --scenario server_crash --server-setting synchronous_commit=off` shows
    the scenario failing: the server then acknowledges commits before their WAL is
    flushed, and a crash loses them.

    ## Why is this bad?
    A worker that was told its step committed goes on to the next one, calls the next
    tool, tells the user. If the step is gone after the server restarts, the run is
    resumed from an older checkpoint and the step (its tool call, its payment, its email)
    is done a second time, or a completed run runs again. A run whose worker died with the
    server and that no claim takes over waits forever; a worker from before the crash that
    still writes corrupts the run its successor now holds.

    ## Example
    The same scenario on a server that acknowledges before it flushes
    (`agentddl prove --scenario server_crash --server-setting synchronous_commit=off`):
    ```text
    error ADP115 [acknowledged-commit-survives-crash] skip_locked/server_crash
      lost_acknowledged_steps=14: acknowledged steps that are not the run's checkpoint after
      recovery; duplicated_steps=14: acknowledged steps done again by a later claim.
      fix: keep synchronous_commit on (or remote_apply/on with a synchronous standby) for
        the workers' transactions, and fsync, full_page_writes on
    ```

    ## Use instead
    Keep the durability settings at their defaults for the workers' sessions:
    ```sql
    ALTER ROLE agent_app SET synchronous_commit = on;  -- never off for steps and completions
    SHOW fsync;             -- on
    SHOW full_page_writes;  -- on
    ```
    Workers journal an effect only after `COMMIT` returned, reconnect after a lost
    connection, and resume a run from its latest checkpoint: a step whose `COMMIT` was cut
    off is in doubt and is found (or not) in the checkpoints.

    ## References
    - https://www.postgresql.org/docs/current/wal-async-commit.html
    - https://www.postgresql.org/docs/current/runtime-config-wal.html#GUC-SYNCHRONOUS-COMMIT
    - https://www.postgresql.org/docs/current/wal-reliability.html
    """

    code = "ADP115"
    name = "acknowledged-commit-survives-crash"
    scenario = SCENARIO
    remedy = (
        "keep synchronous_commit on (or remote_apply/on with a synchronous standby) for the workers' "
        "transactions, and fsync, full_page_writes on"
    )
