"""ADP113 hot-read-authorized-in-postgres: the guarantee the `hot_tenant_read` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.hot_tenant_read import SCENARIO


class HotReadAuthorizedInPostgres(ProveRule):
    """A run's hot projection is served only after PostgreSQL authorized the read, and
    only when it is this tenant's projection of the run's current claim.

    ## What it does
    Guarantees that reading a run never trusts Redis for who may see it. In the
    `hot_tenant_read` scenario runs of two tenants are held with projections in Redis;
    a worker serving tenant A reads runs as an API would (the module's `view`, with
    `get_run` for A as the loader) against what a careless or hostile writer could
    leave: B's runs with their own projections, B's runs whose projection names tenant
    A, A's runs whose projection names another tenant or carries an older fencing
    token. Nothing of B's may be returned, no projection that is not this claim's of
    this tenant may be shown, and A's intact projections must be (else the read path
    proved nothing).

    ## Why is this bad?
    A Redis key or hash that contains a tenant id is not an authorization: any process
    that can write Redis can write one, and a bug can write the wrong one. An API that
    answers from Redis first shows one customer another customer's run; one that skips
    the fencing comparison shows a stale attempt's progress as the run's.

    ## Example
    `view` in `redis/hot_state.py` changed to answer from Redis when the projection names
    the caller's tenant, before asking PostgreSQL (`agentddl prove -p hot.yaml --workers
    3 --runs 30 --lease-seconds 1`, on PostgreSQL 18 and Redis 7):
    ```text
    error ADP113 [hot-read-authorized-in-postgres] skip_locked/hot_tenant_read
      hot_reads_leaked=1: reads that returned another tenant's run or projection;
      mismatched_projection_served=1: projections shown though not this claim's of this
      tenant.
      fix: read the durable row with the caller's tenant first (get_run), and add a
        projection only when its tenant and fencing token equal that row's
    ```

    ## Use instead
    ```python
    row = queries.get_run(conn, tenant_id=caller_tenant, run_id=run_id)   # authorizes
    if row is None:
        return None                                  # Redis is never read
    hot = redis.hgetall(f"agent:run:{{{run_id}}}:state")
    if hot.get("tenant") == str(row["tenant_id"]) and hot.get("fencing_token") == str(row["fencing_token"]):
        ...                                          # add step, progress, heartbeat
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-rowsecurity.html
    """

    code = "ADP113"
    name = "hot-read-authorized-in-postgres"
    scenario = SCENARIO
    remedy = (
        "read the durable row with the caller's tenant first (get_run), and add a projection only "
        "when its tenant and fencing token equal that row's"
    )
