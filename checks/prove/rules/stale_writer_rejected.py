"""ADP103 stale-writer-rejected: the guarantee the `stale_writer` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.stale_writer import SCENARIO


class StaleWriterRejected(ProveRule):
    """A worker whose run was taken over can change nothing: every late write is
    refused by the version or fencing check, and the newer attempt's work stays
    intact.

    ## What it does
    Guarantees that a worker whose run was taken over can change nothing: every late
    write is refused by the fencing or version check. In the `stale_writer` scenario
    worker A claims a run, writes step 1 and reserves an operation, then stalls past
    its lease (a GC pause, a network partition). Worker B's claim takes the run over
    once the lease has run out. A wakes up and writes as if it still held the run: a transition from
    the version it read, checkpoint 2, event 2, a new operation, the result of the
    operation B took over, a heartbeat, completion. Each must be refused (no row, or a
    constraint's refusal); then B's own writes and read-backs must go through
    untouched.

    ## Why is this bad?
    Without fencing the last writer wins, not the current owner: a late "running"
    overwrites a recorded "cancelled", an old attempt's checkpoint replaces the newer
    one (the run resumes from the past), an effect B already took over is recorded
    with A's result. None of it raises an error; the data is simply wrong.

    ## Example
    The fencing check removed from the history and operation writes of `queries.sql`
    (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP103 [stale-writer-rejected] skip_locked/stale_writer
      stale_writes_accepted=8: writes of a taken-over worker that were accepted;
      newer_state_damaged=2: runs where the newer attempt's writes or read-backs failed;
      errors=2: named queries that raised.
      fix: fence every write with the run's current fencing token (and lease token) or its
        expected version, so a writer whose claim was taken over changes nothing
    ```

    ## Use instead
    Every write names the claim it comes from; a claim bumps the run's fencing token,
    so an older claim's write matches no row:
    ```sql
    INSERT INTO agent.checkpoints (...)
    SELECT ... FROM agent.runs AS r
    WHERE r.run_id = :run_id AND r.fencing_token = :fencing_token AND r.status = 'running';
    UPDATE agent.runs SET status = :to_status, version = version + 1
    WHERE run_id = :run_id AND version = :expected_version;   -- 0 rows: re-read, never overwrite
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-update.html
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP103"
    name = "stale-writer-rejected"
    scenario = SCENARIO
    remedy = (
        "fence every write with the run's current fencing token (and lease token) or its expected "
        "version, so a writer whose claim was taken over changes nothing"
    )
