"""ADP109 poison-message-dead-lettered: the guarantee the `poison_message` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.poison_message import SCENARIO


class PoisonMessageDeadLettered(ProveRule):
    """A message no consumer accepts is tried a bounded number of times, backing off,
    then dead-lettered where an operator sees it; it never blocks or burns the relay.

    ## What it does
    Guarantees that the outbox bounds delivery attempts: a poison message is tried at
    most its `max_attempts` times, waiting longer after each refusal, then
    dead-lettered and listed by `dead_letters` and `health_dead_letters`, while every
    healthy message is still delivered. In the `poison_message` scenario the outbox
    holds healthy messages and two poison ones: the consumer refuses one every time
    (the relay reports it with `fail_delivery`), the other kills the relay that takes
    it, every time (its claim lapses). Observed: the relays' journal (claims,
    refusals and the backoff each was given, deliveries, crashes) against the outbox
    rows.

    ## Why is this bad?
    A message retried forever costs a relay round (or a relay process) on every pass:
    at-least-once delivery turns into at-least-forever, the queue's lag alarm fires
    for the wrong reason, and a message that crashes relays takes the whole relay
    fleet down in turn. Without a dead-letter state nobody is told which message it
    is, and retries without backoff hammer a consumer that is already failing.

    ## Example
    The attempt bound removed from `relay_claim` and `fail_delivery` (`agentddl
    prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP109 [poison-message-dead-lettered] skip_locked/poison_message
      poison_not_dead_lettered=2: poison messages still pending (tried without end) or
      delivered; poison_tried_past_limit=2: claims of poison messages beyond their
      max_attempts.
      fix: count delivery attempts, back off after each failure, and dead-letter a message
        whose attempts are spent (its own state, listed and alerted on)
    ```

    ## Use instead
    ```sql
    -- the relay reports a failure: back off, or dead-letter once attempts are spent
    UPDATE agent.outbox AS m
    SET claimed_by = NULL, claimed_until = NULL, last_error = :error,
        dead_at = CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END,
        available_at = now() + :backoff_seconds * power(2, m.delivery_attempts - 1) * interval '1 second'
    WHERE ... AND m.claimed_by = :relay_id AND m.delivered_at IS NULL AND m.dead_at IS NULL;
    -- a claim that lapsed on the last attempt (the relay died on it) is dead-lettered too
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP109"
    name = "poison-message-dead-lettered"
    scenario = SCENARIO
    remedy = (
        "count delivery attempts, back off after each failure, and dead-letter a message whose "
        "attempts are spent (its own state, listed and alerted on)"
    )
