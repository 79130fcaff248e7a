"""ADP108 forged-lease-rejected: the guarantee the `forged_lease` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.forged_lease import SCENARIO


class ForgedLeaseRejected(ProveRule):
    """Every write of an attempt's work needs the attempt's lease token: a caller who
    knows the run and its fencing token but not the token changes nothing.

    ## What it does
    Guarantees that every write of an attempt's work is a capability: the caller must
    present the attempt's lease token, which the database checks against its stored
    sha256, and a guessed or stolen fencing token is not enough. In the `forged_lease`
    scenario holders claim runs, write step 1 and reserve an operation, and keep their
    leases live. An attacker that knows each run's key, its current fencing token (a
    small counter) and the holder's operation key, but not the lease token, tries
    every write with a token of its own: `heartbeat`, `append_event`,
    `save_checkpoint`, `reserve_operation`, `complete_operation`, `fail_attempt`,
    `interrupt_attempt`, `complete_attempt`, and those of the model's parts where the
    profile has them (`start_node`, `request_approval`, `append_attempt_note`,
    `record_step`). Each must return no row; then the
    holders' own writes and read-backs must go through untouched.

    ## Why is this bad?
    A fencing token orders claims; it is not a secret. Anything that can reach the
    database with the app role and guess a run's current token (1, 2, 3, ...) can
    append events to its history, replace its resume point, record an effect's
    result it never produced, or finish the run: a confused or compromised worker
    corrupts runs it never held, and nothing in the data says so.

    ## Example
    The lease-token check removed from the history and operation writes of
    `queries.sql` (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL
    18):
    ```text
    error ADP108 [forged-lease-rejected] skip_locked/forged_lease
      forged_writes_accepted=8: writes with a forged lease token (right run, right fencing
      token) that were accepted.
      fix: make every write of an attempt's work present the attempt's lease token and
        check its hash in the statement, next to the fencing token
    ```

    ## Use instead
    The lease token is returned once, stored only as its hash, and presented with
    every write of the attempt's work:
    ```sql
    INSERT INTO agent.events (...)
    SELECT ... FROM agent.attempts AS a JOIN agent.runs AS r USING (tenant_id, run_id)
    WHERE a.run_id = :run_id AND a.status = 'active'
      AND a.fencing_token = :fencing_token
      AND a.lease_token_hash = sha256(convert_to(:lease_token, 'UTF8'))
      AND r.fencing_token = a.fencing_token AND r.status = 'running'
    FOR KEY SHARE OF a FOR SHARE OF r;
    ```

    ## References
    - https://www.postgresql.org/docs/current/functions-binarystring.html
    """

    code = "ADP108"
    name = "forged-lease-rejected"
    scenario = SCENARIO
    remedy = (
        "make every write of an attempt's work present the attempt's lease token and check its "
        "hash in the statement, next to the fencing token"
    )
