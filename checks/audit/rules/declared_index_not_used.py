"""ADA104 declared-index-not-used."""

from __future__ import annotations

from agentddl.checks.audit.rules import AuditRule


class DeclaredIndexNotUsed(AuditRule):
    """The plan serves a path with another index than the one the model declares for it.

    ## What it does
    Reports (as info) an access path of the model, or a user's query with an
    `-- index:` line, whose plan on a large table (10,000 rows or more) uses neither the
    declared index nor an index whose key starts with the declared key. Inserts into the
    table count as using a unique declared index (it is checked on every insert).

    ## Why is this bad?
    It is not, when the plan passes the other rules: the planner found an equally good
    way. It is worth a look because the model and the database disagree about why the
    index exists: the query may have drifted from the index (a new predicate, another
    order), or the declared index may serve nothing and only cost writes.

    ## Example
    ```sql
    -- name: children(tenant_id, parent_run_id)
    -- index: runs_parent_idx
    SELECT r.run_id FROM agent.runs AS r
    WHERE r.tenant_id = :tenant_id AND r.parent_run_id = :parent_run_id;
    ```
    is planned as
    ```
    Index Scan using runs_pkey on runs
      Index Cond: (tenant_id = '0b6e...'::uuid)
      Filter: (parent_run_id = '9c2b...'::uuid)
    ```

    ## Use instead
    Keep the query and its declared index in step: change the query back to the
    declared index's leading columns, or declare (and create) the index the query needs
    and drop the one nothing uses.

    ## References
    - https://www.postgresql.org/docs/current/indexes-multicolumn.html
    - https://www.postgresql.org/docs/current/using-explain.html
    """

    code = "ADA104"
    name = "declared-index-not-used"
    severity = "info"
