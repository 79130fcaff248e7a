"""ADP102 crashed-run-taken-over: the guarantee the `crash_mid_step` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.crash_mid_step import SCENARIO


class CrashedRunTakenOver(ProveRule):
    """A worker that dies mid-step never leaves its run stuck: the lease expires by
    time alone, another worker takes the run over and resumes it from its latest
    checkpoint.

    ## What it does
    Guarantees that a worker killed mid-step never leaves its run stuck: its lease
    expires by time alone and another worker takes the run over from its latest
    checkpoint, with no human, no reaper and no `expire_leases` call. In the
    `crash_mid_step` scenario workers SIGKILL themselves at four points of a run's
    first attempt: right after the claim, inside a heartbeat's transaction, after a
    step's writes before `COMMIT`, right after a step's `COMMIT`. The other workers'
    `claim_run` must take each run over once its lease runs out, in the claim itself
    (the killed attempt ends `expired`, the new one opens); the takeover reads the
    latest checkpoint back and resumes after it.
    Observed in the database (every succeeded run has checkpoints and events exactly
    1..n, killed attempts ended `expired`), the journal (what each takeover resumed
    from) and whatever is still live when nothing moves.

    ## Why is this bad?
    Workers die: OOM kills, deploys, preempted nodes, closed laptops. A run whose
    status says "running" after its worker died is a tombstone nobody may clear; a
    takeover that restarts from zero pays for every step (and every model call) twice,
    one that resumes from a half-written checkpoint continues from a state that never
    committed.

    ## Example
    `claim_run` changed to take a lapsed run over only a day after its lease ran out
    (a reaper someone must run) (`agentddl prove --dsn ... --workers 4 --runs 100`, on
    PostgreSQL 18):
    ```text
    error ADP102 [crashed-run-taken-over] skip_locked/crash_mid_step
      stuck_runs=4: runs still in progress when nothing moved any more; not_taken_over=4:
      killed attempts whose run was never taken over by time.
      fix: let the claim take over a run whose lease ran out (by time alone, fenced by the
        expired attempt's token), and resume from the latest committed checkpoint
    ```

    ## Use instead
    An attempt is valid only until its lease; the claim itself takes a lapsed run over,
    ending the old attempt before the new one opens, fenced so a run that moved on is
    left alone, and readers derive the status from the lease:
    ```sql
    WITH lapsed AS (SELECT ... FROM agent.attempts AS a JOIN agent.runs AS r USING (...)
                    WHERE a.status = 'active' AND a.lease_expires_at < now()
                      AND r.status = 'running' AND r.fencing_token = a.fencing_token ...),
    ended AS (UPDATE agent.attempts SET status = 'expired' ... RETURNING ...),
    claimed AS (UPDATE agent.runs SET fencing_token = fencing_token + 1 ...
                WHERE ... AND EXISTS (SELECT FROM ended ...))
    INSERT INTO agent.attempts ...;                         -- one statement, no reaper
    ```
    Write each step's checkpoint and event in one transaction, so the latest
    checkpoint is always a committed one.

    ## References
    - https://www.postgresql.org/docs/current/tutorial-transactions.html
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP102"
    name = "crashed-run-taken-over"
    scenario = SCENARIO
    remedy = (
        "let the claim take over a run whose lease ran out (by time alone, fenced by the expired "
        "attempt's token), and resume from the latest committed checkpoint"
    )
