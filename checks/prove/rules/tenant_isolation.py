"""ADP106 tenant-isolation: the guarantee the `tenant_isolation` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.tenant_isolation import SCENARIO


class TenantIsolation(ProveRule):
    """A session of one tenant can read and change nothing of another tenant's, and
    deleting a tenant follows the profile's `on_tenant_delete`.

    ## What it does
    Guarantees that a session of one tenant reads and changes nothing of another
    tenant's, and that deleting a tenant follows the profile's `on_tenant_delete`. In
    the `tenant_isolation` scenario a worker whose session belongs to tenant A aims
    every named query at tenant B's runs, checkpoints, events, operations and
    messages, with B's keys, fencing and lease tokens; under row-level security it
    also passes B's tenant id (the database, not the query, must refuse it) and the
    coordinator tries raw SQL as the app role. Two more under row-level security: a
    pooled connection, where tenant A's transaction (its tenant named by
    `set_tenant`) committed and the next transaction on the same connection, as a
    pooler would hand it to another client, names no tenant: it must see nothing; and
    the tables' owner (the owner role) in a session naming tenant A must see nothing
    of B's (FORCE ROW LEVEL SECURITY: an owner otherwise skips every policy). Then a
    third tenant is deleted: its rows must be gone (`cascade`) or the delete refused
    with every row kept (`restrict`), the other tenants' rows untouched. A
    single-tenant profile has nothing to isolate (the scenario holds, not
    applicable).

    ## Why is this bad?
    One missing tenant predicate shows one customer's runs, prompts and results to
    another, or lets one customer's worker complete another's run. A tenant set for
    the session outlives the transaction: behind a transaction-mode pooler
    (PgBouncer) the next client's transaction on that server connection runs as the
    previous client's tenant. A table owner skips row-level security unless it is
    FORCEd. A child row that can point at another tenant's parent survives that
    tenant's deletion, and a deletion that leaves rows behind keeps data a customer
    asked to erase.

    ## Example
    The tenant predicate removed from the reads and fenced writes of `queries.sql`
    (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP106 [tenant-isolation] skip_locked/tenant_isolation
      probe_leaks=21: named-query probes that read or changed another tenant's rows.
      fix: scope every query and every child foreign key by the tenant (row-level security
        where the profile enables it) and make tenant deletion follow on_tenant_delete
    ```

    ## Use instead
    Every tenant-owned child joins its parent through a tenant-scoped key, every query
    names the tenant, and (when enabled) row-level security enforces the
    transaction's, on the owner too:
    ```sql
    ALTER TABLE agent.outbox ADD CONSTRAINT outbox_run_fkey
        FOREIGN KEY (tenant_id, run_id) REFERENCES agent.runs (tenant_id, run_id) ON DELETE CASCADE;
    SELECT ... FROM agent.runs WHERE tenant_id = :tenant_id AND run_id = :run_id;
    ALTER TABLE agent.runs ENABLE ROW LEVEL SECURITY;
    ALTER TABLE agent.runs FORCE ROW LEVEL SECURITY;
    CREATE POLICY runs_tenant ON agent.runs
        USING (tenant_id = current_setting('agentddl.tenant', true)::uuid);
    SELECT set_config('agentddl.tenant', :tenant_id, true);   -- first in each transaction
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-rowsecurity.html
    - https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET
    - https://www.pgbouncer.org/features.html
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    """

    code = "ADP106"
    name = "tenant-isolation"
    scenario = SCENARIO
    remedy = (
        "scope every query and every child foreign key by the tenant (row-level security where the "
        "profile enables it) and make tenant deletion follow on_tenant_delete"
    )
