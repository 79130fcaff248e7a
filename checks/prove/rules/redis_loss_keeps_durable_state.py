"""ADP112 redis-loss-keeps-durable-state: the guarantee the `hot_flush` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.hot_flush import SCENARIO


class RedisLossKeepsDurableState(ProveRule):
    """Redis losing everything mid-run loses no durable state and costs no run: each
    holder writes its projection again at its next heartbeat.

    ## What it does
    Guarantees that Redis is never the source of truth. In the `hot_flush` scenario
    workers work runs step by step with the hot projection (progress and heartbeats to
    Redis; each step's checkpoint and event, and the durable lease every third of the
    lease, in PostgreSQL) while Redis loses everything twice (FLUSHALL and SCRIPT FLUSH
    on a throwaway server, as a restart without persistence would). Every run must
    succeed with its checkpoints and events exactly 1..n, no holder may give its run up
    (neither for the loss nor for a durable lease renewed too rarely: the runs outlast
    their lease, and a sampler looks for a held run whose durable lease ran out), and
    every run still held a step after a loss must have its projection back, under its
    claim's fencing token.

    ## Why is this bad?
    State kept only in Redis goes with a restart, a failover without replication or an
    eviction: a result, a resume point, the fact that a step happened. A worker that
    takes a missing projection for a lost lease abandons healthy runs whenever Redis
    restarts, and they wait a lease for a takeover; one that never writes it again
    leaves a UI without progress until the run ends.

    ## Example
    The re-publication of a missing projection removed from `Holder.beat` in
    `redis/hot_state.py` (`agentddl prove -p hot.yaml --workers 3 --runs 30
    --lease-seconds 1`, on PostgreSQL 18 and Redis 7):
    ```text
    error ADP112 [redis-loss-keeps-durable-state] skip_locked/hot_flush
      stuck_runs=3: runs still in progress when nothing moved any more; leases_lost=3:
      healthy holders that lost their run (Redis loss taken for a lost lease, a lapsed
      lease); not_rebuilt=5: runs still held a step after the loss whose projection was
      not written again.
      fix: keep every state change in PostgreSQL, renew the durable lease every third of
        the lease, and answer a missing projection by writing it again from the holder's
        claim and latest checkpoint
    ```

    ## Use instead
    ```python
    outcome = hot.renew(claim)          # renew_lease.lua
    if outcome == "missing":            # Redis lost it: not a lost lease
        outcome = hot.publish(claim, version + 1, "running", step, progress)
    if clock() - renewed_at >= lease / 3:   # the durable lease, whatever Redis said
        renewed = queries.heartbeat(conn, ...) is not None
    ```

    ## References
    - https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/
    - https://redis.io/docs/latest/develop/reference/eviction/
    """

    code = "ADP112"
    name = "redis-loss-keeps-durable-state"
    scenario = SCENARIO
    remedy = (
        "keep every state change in PostgreSQL, renew the durable lease every third of the lease, and "
        "answer a missing projection by writing it again from the holder's claim and latest checkpoint"
    )
