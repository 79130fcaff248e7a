"""ADA111 unused-index."""

from __future__ import annotations

from agentddl.checks.audit.rules import AuditRule


class UnusedIndex(AuditRule):
    """No access path's plan and no constraint uses the index.

    ## What it does
    Reports an index that neither enforces a constraint (primary key, unique,
    exclusion) nor appears in any audited path's plan or foreign key lookup. An index the
    model declares is reported only when nothing it says it serves (an access path, a
    constraint) exists any more: at a small volume the planner rightly ignores indexes on
    small tables, so a declared index missing from the plans is the plan's business
    (ADA104, ADA105), not hygiene.

    On a database audited in place (`--dsn`), an index no audited path reads is reported
    when the scratch clone confirms the workload does without it, with its size and the
    scans `pg_stat_user_indexes` counted since the statistics were reset: a warning at 0
    scans, an info when production did scan it (a statement outside the audited
    workload). Without a clone, an index that is the only one a foreign key's lookups can
    use is an info that says what dropping it would cost: every DELETE or key UPDATE of a
    parent row scanning the referencing table.

    ## Why is this bad?
    Every index is maintained on every write to its table, takes space in shared buffers
    and on disk, and adds to VACUUM's work, whether or not any query reads it. An index
    no query of the workload uses costs writes and gives nothing back.

    ## Example
    ```sql
    CREATE INDEX runs_input_idx ON agent.runs (input);
    ```
    appears in no path's plan:
    ```
    Index Scan using runs_identity_key on runs
    Index Scan using runs_claim_idx on runs
    ...
    ```

    ## Use instead
    Drop it, or add the query that needs it to the audited workload (`--queries`):
    ```sql
    DROP INDEX CONCURRENTLY agent.runs_input_idx;
    ```

    ## References
    - https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-ALL-INDEXES-VIEW
    - https://www.postgresql.org/docs/current/sql-dropindex.html
    """

    code = "ADA111"
    name = "unused-index"
    severity = "warning"
