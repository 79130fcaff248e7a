"""ADP118 acknowledged-commit-survives-failover: the guarantee the `failover` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.failover import SCENARIO


class AcknowledgedCommitSurvivesFailover(ProveRule):
    """Every commit the primary acknowledged is on the replica promoted in its place, and
    no worker from before the promotion writes after it.

    ## What it does
    Guarantees that a failover (the primary lost for good, its streaming replica promoted)
    loses no acknowledged commit, duplicates no acknowledged step, leaves no run stuck once
    the leases of the cut-off attempts lapse on the new primary's clock, and refuses the
    fenced writes of a claim taken before the promotion. In the `failover` scenario prove
    starts a replica of the embedded server it owns (a base backup taken with
    `pg_backup_start`, streaming through a physical slot; synchronous by default), points
    the workers at both servers with one multi-host connection string
    (`host=127.0.0.1,127.0.0.1 port=<primary>,<replica> target_session_attrs=read-write`),
    and while they drain runs of three steps it stops the primary's WAL sender for 300 ms
    (a replica 300 ms behind), kills every process of the primary and promotes the replica
    (`pg_promote`). The workers reconnect to whichever host accepts writes and go on. A
    worker journals a step or a completion only once its `COMMIT` returned; the journal
    is held against the promoted replica. The report gives the replica's lag at the kill
    (`lag_bytes_at_failover`, `lag_seconds_at_failover`) and `promotion_seconds`.
    `agentddl prove --scenario failover --replication async` shows the scenario failing:
    an asynchronous primary acknowledges commits the replica never received, and the
    promotion loses them. Only a server prove starts itself fails over: with `--dsn` or
    `--server` the scenario is not run.

    ## Why is this bad?
    A worker that was told its step committed calls the next tool and tells the user. If
    the new primary has never heard of the step, the run resumes from an older checkpoint
    and the step (its tool call, its payment, its email) is done a second time; a run
    completed on the old primary runs again; an outbox message whose commit was lost is
    never sent, and one whose `delivered_at` was lost is sent twice. A fencing token
    granted on the old primary and lost with it can be granted again by the new one, so a
    stale worker's write is no longer told apart from its successor's.

    ## Example
    The same scenario with an asynchronous replica
    (`agentddl prove --scenario failover --replication async`):
    ```text
    error ADP118 [acknowledged-commit-survives-failover] skip_locked/failover
      lost_acknowledged_steps=8: acknowledged steps that are not the run's checkpoint
      afterwards; lost_acknowledged_completions=4: acknowledged completions that are not
      the run's result; duplicated_steps=26: acknowledged steps done again by a later claim.
      fix: fail over only to a synchronous standby: synchronous_standby_names set on the
        primary and synchronous_commit = on (or remote_apply) for the workers' transactions
    ```

    ## Use instead
    Make the primary wait for the standby it would fail over to, for the workers'
    transactions at least:
    ```sql
    ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (replica_a, replica_b)';
    SELECT pg_reload_conf();
    ALTER ROLE agent_app SET synchronous_commit = on;  -- or remote_apply; never local/off
    ```
    Promote only a standby that was synchronous (Patroni's `synchronous_mode_strict`, or
    check `pg_stat_replication.sync_state` before promoting), connect workers through a
    multi-host string with `target_session_attrs=read-write`, and let them resume each run
    from its latest checkpoint on the new primary. PLAN.md's failover runbook says what a
    promotion means for leases, fencing tokens, the outbox and the hot projection.

    ## References
    - https://www.postgresql.org/docs/current/warm-standby-failover.html
    - https://www.postgresql.org/docs/current/warm-standby.html#SYNCHRONOUS-REPLICATION
    - https://www.postgresql.org/docs/current/runtime-config-replication.html#GUC-SYNCHRONOUS-STANDBY-NAMES
    - https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-TARGET-SESSION-ATTRS
    """

    code = "ADP118"
    name = "acknowledged-commit-survives-failover"
    scenario = SCENARIO
    remedy = (
        "fail over only to a synchronous standby: synchronous_standby_names set on the primary and "
        "synchronous_commit = on (or remote_apply) for the workers' transactions"
    )
