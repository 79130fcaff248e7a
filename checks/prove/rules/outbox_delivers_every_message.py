"""ADP105 outbox-delivers-every-message: the guarantee the `outbox` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.outbox import SCENARIO


class OutboxDeliversEveryMessage(ProveRule):
    """Every committed state change's message is delivered at least once, none is
    lost, and none exists for a change that did not commit.

    ## What it does
    Guarantees that every committed state change's message is delivered at least once,
    and that no message exists for a change that did not commit, through worker and
    relay crashes. In the `outbox` scenario workers finish runs and write each run's
    message in the same transaction; some die right after that `COMMIT`. Relays claim
    messages (`relay_claim`), hand them to the consumer and acknowledge
    (`mark_delivered`); some die after claiming, before delivering, and (from two
    relays on) after delivering, before acknowledging. The outbox rows (one per
    succeeded run, none for a run that did not succeed) are compared with what the
    consumer received. Duplicate deliveries are counted, not failed: the consumer
    dedupes by message id.

    ## Why is this bad?
    A message published after the commit is lost when the process dies between the
    two; one published before it announces a change that may roll back. A relay claim
    that never lapses strands a crashed relay's batch forever; an acknowledgement
    written at claim time marks undelivered messages delivered.

    ## Example
    `relay_claim` changed to mark messages delivered when it claims them (`agentddl
    prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP105 [outbox-delivers-every-message] skip_locked/outbox
      lost_outbox=2: messages never delivered, or succeeded runs without their message.
      fix: write the message in the transaction of the state change it announces, let a
        lapsed relay claim come back, and acknowledge only while holding the claim
    ```

    ## Use instead
    ```sql
    BEGIN;
    UPDATE agent.attempts SET status = 'succeeded' ... ;   -- the state change
    INSERT INTO agent.outbox (tenant_id, run_id, topic, payload) VALUES (...);  -- its message
    COMMIT;
    -- the relay: a lapsed claim comes back; only the claim's holder acknowledges
    ... WHERE delivered_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
        FOR UPDATE SKIP LOCKED ...
    UPDATE agent.outbox SET delivered_at = now()
    WHERE message_id = :message_id AND claimed_by = :relay_id AND delivered_at IS NULL;
    ```

    ## References
    - https://www.postgresql.org/docs/current/tutorial-transactions.html
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP105"
    name = "outbox-delivers-every-message"
    scenario = SCENARIO
    remedy = (
        "write the message in the transaction of the state change it announces, let a lapsed relay "
        "claim come back, and acknowledge only while holding the claim"
    )
