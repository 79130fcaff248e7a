"""ADP114 approval-decided-once: the guarantee the `approval_once` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.approval_once import SCENARIO


class ApprovalDecidedOnce(ProveRule):
    """A pending approval is decided once, and its event is written with the decision.

    ## What it does
    Guarantees that of people (or handlers) deciding one pending approval at the same
    moment exactly one decision wins, that the stored decision is the winner's, and that
    the winner's event is written in the same statement. In the `approval_once`
    scenario runs wait on one approval each and every worker decides every approval at
    once (approved or rejected at random) with `decide_approval`; a worker journals each
    decision it was told it won. Runs with the profile's `model.approvals` on; without
    approvals the scenario holds with nothing to decide.

    ## Why is this bad?
    A human-in-the-loop wait is a record, not only a `waiting` status: two
    reviewers clicking at once, or a retried webhook, must not approve and reject the
    same request, nor resume the run twice. An approval decided by a plain UPDATE by key
    lets the last writer win silently; a decision written without its event leaves the
    run's history unable to say who decided.

    ## Example
    `decide_approval` without its `status = 'pending'` check (`agentddl prove --dsn ...
    --workers 4`, on PostgreSQL 18):
    ```text
    error ADP114 [approval-decided-once] skip_locked/approval_once
      double_decisions=9: approvals decided more than once; events_not_once=9: decided
      approvals whose run has not exactly one approval event.
      fix: decide with UPDATE ... WHERE status = 'pending' and write the decision's event
        in the same statement (decide_approval)
    ```

    ## Use instead
    ```sql
    WITH decided AS (
        UPDATE agent.approvals AS ap SET status = :decision, decided_by = :decided_by,
            decided_at = now()
        WHERE ap.tenant_id = :tenant_id AND ap.run_id = :run_id
          AND ap.approval_id = :approval_id AND ap.status = 'pending'
        RETURNING ap.tenant_id, ap.run_id, ap.approval_id, ap.status
    )
    INSERT INTO agent.events (...) SELECT ... FROM decided ...;  -- both or neither
    ```

    ## References
    - https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP114"
    name = "approval-decided-once"
    scenario = SCENARIO
    remedy = (
        "decide with UPDATE ... WHERE status = 'pending' and write the decision's event in the "
        "same statement (decide_approval)"
    )
