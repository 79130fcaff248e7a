"""ADP101 one-claim-per-run: the guarantee the `claim_race` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.claim_race import SCENARIO


class OneClaimPerRun(ProveRule):
    """Every queued run is claimed by exactly one live attempt at a time: none twice,
    none skipped.

    ## What it does
    Guarantees that every queued run is claimed by exactly one live attempt at a time,
    none twice and none skipped, however many workers poll at once. The `claim_race`
    scenario has `--workers` processes drain `--runs` queued runs with `claim_run`
    (after `expire_leases`, as every poll does), under a lease long enough that no
    claim may legitimately expire. Each worker journals every claim and every step's
    effect; a sampler looks for a run with two active attempts while the race runs;
    afterwards the attempts' history is checked for overlapping attempts. Then the
    invariant itself: while a worker holds a run, a second active attempt inserted by
    the app role must be refused by the database.

    ## Why is this bad?
    Two workers on one run do every step twice: two tool calls, two payments, two
    emails, two agents editing the same branch. A run no worker claims waits forever.
    A claim guarded only by the application (read, then update) has a time-of-check to
    time-of-use gap that opens under exactly the load production has.

    ## Example
    `claim_run` without `FOR UPDATE SKIP LOCKED` and its `status = 'queued'` recheck,
    and the one-active-attempt index dropped (`agentddl prove --dsn ... --workers 4
    --runs 100`, on PostgreSQL 18):
    ```text
    error ADP101 [one-claim-per-run] skip_locked/claim_race
      double_claims=35: runs claimed more than once; duplicate_effects=42: steps done
      twice (two claims worked one run); overlapping_attempts=35: runs with two live
      attempts at once (attempts history); sampled_double_active=66: samples that caught a
      run with two active attempts; lost_runs=1: runs never completed (skipped or lost);
      second_active_attempt_accepted=1: a second active attempt of a held run the database
      accepted; errors=1: named queries that raised.
      fix: claim with the strategy's guard (SKIP LOCKED with a status recheck,
        compare-and-set on version, or an advisory lock) and keep the partial unique index
        of one active attempt per run
    ```

    ## Use instead
    Claim with the strategy's guard, and let the table refuse a second live attempt:
    ```sql
    -- skip_locked: concurrent claims skip the row another claim holds, and recheck it
    SELECT tenant_id, run_id FROM agent.runs
    WHERE status = 'queued' AND wake_at <= now()
    ORDER BY priority DESC, wake_at LIMIT 1
    FOR UPDATE SKIP LOCKED;
    -- every strategy: at most one active attempt per run, whatever the query does
    CREATE UNIQUE INDEX attempts_one_active_key ON agent.attempts (tenant_id, run_id)
        WHERE status = 'active';
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    - https://www.postgresql.org/docs/current/indexes-partial.html
    - https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
    """

    code = "ADP101"
    name = "one-claim-per-run"
    scenario = SCENARIO
    remedy = (
        "claim with the strategy's guard (SKIP LOCKED with a status recheck, compare-and-set on "
        "version, or an advisory lock) and keep the partial unique index of one active attempt per run"
    )
