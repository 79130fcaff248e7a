"""ADP107 one-winner-per-version: the guarantee the `version_races` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.version_races import SCENARIO


class OneWinnerPerVersion(ProveRule):
    """Of concurrent transitions from one version exactly one wins, and the database
    itself refuses a forbidden transition.

    ## What it does
    Guarantees that of concurrent transitions of a run from one version exactly one
    wins, and that the database itself refuses a forbidden transition. In the
    `version_races` scenario every worker transitions every run from the same version
    at once (half to `waiting`, half to `cancelled`) with `transition_run`: exactly
    one may win, each loser gets no row and, re-reading, finds a newer version. Then
    forbidden transitions are tried, through `transition_run` and as raw SQL by the
    app role (cancelled -> running, waiting -> succeeded, a status change that does
    not bump the version): the database must refuse them, not only the query's list.

    ## Why is this bad?
    A worker, the cancel API and an approval handler update one run concurrently. With
    last-write-wins a late "running" overwrites a recorded "cancelled": a run the user
    cancelled keeps spending. A transition rule kept only in application code does not
    protect a migration script, an admin's UPDATE or a newly generated tool.

    ## Example
    The version check removed from `transition_run` (`agentddl prove --dsn ...
    --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP107 [one-winner-per-version] skip_locked/version_races
      stale_writes_accepted=6: transitions from a version another transition had already
      moved on; versions_not_bumped_once=6: runs whose version is not exactly one past the
      raced one.
      fix: transition with UPDATE ... WHERE version = :expected_version, bump the version
        on every status change, and refuse forbidden transitions in a trigger
    ```

    ## Use instead
    ```sql
    UPDATE agent.runs SET status = :to_status, version = version + 1
    WHERE tenant_id = :tenant_id AND run_id = :run_id AND version = :expected_version
    RETURNING version;   -- no row: someone else moved it; re-read, decide, never blindly retry
    CREATE TRIGGER runs_transition_guard BEFORE UPDATE OF status ON agent.runs
    FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status)
    EXECUTE FUNCTION agent.check_run_transition();   -- allowed moves only, and a version bump
    ```

    ## References
    - https://www.postgresql.org/docs/current/plpgsql-trigger.html
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP107"
    name = "one-winner-per-version"
    scenario = SCENARIO
    remedy = (
        "transition with UPDATE ... WHERE version = :expected_version, bump the version on every "
        "status change, and refuse forbidden transitions in a trigger"
    )
