"""ADA111 unused-index."""

from __future__ import annotations

from agentddl.checks.audit.fkactions import covering
from agentddl.checks.audit.hygiene import IndexFacts, IndexRule, InPlaceFacts, UnreadIndexRule
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.usage import megabytes
from agentddl.checks.core.findings import Finding


class UnusedIndex(IndexRule, UnreadIndexRule):
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

    def check(self, seen: IndexFacts) -> list[Finding]:
        """Declared indexes that serve nothing that exists; undeclared ones no plan uses.
        (A declared index whose path planned without it is the plan's business: at small
        volume the planner rightly ignores indexes on tiny tables.)"""
        catalog, declared = seen.catalog, seen.declared
        if declared is None:
            return []
        return [
            self.finding(
                f"No access path or constraint uses {index}: every write pays for it.",
                "drop it, or add the query that needs it to the audited workload (--queries)",
                object=f"{catalog.schema}.{index}",
            )
            for index in sorted(catalog.index_table)
            if index not in catalog.constraint_indexes
            and index not in catalog.unique
            and (not declared[index] if index in declared else index not in seen.used)
        ]

    def unread(self, catalog: Catalog, used: set[str], facts: InPlaceFacts) -> list[Finding]:
        """Each index of a large table that enforces nothing and no audited path reads."""
        return [
            self.not_needed(catalog, index, facts)
            for index in sorted(catalog.index_table)
            if index not in used
            and index not in catalog.constraint_indexes
            and index not in catalog.unique
            and catalog.rows.get(catalog.index_table[index], 0.0) >= facts.large_rows
        ]

    def not_needed(self, catalog: Catalog, index: str, facts: InPlaceFacts) -> Finding:
        """A warning when production's counter agrees (0 scans), an info when it does not
        (a statement outside the workload reads it) or when the index is the only one a
        foreign key's lookups can use (what dropping it would cost is said)."""
        table = catalog.index_table[index]
        usage = facts.usage.of(index)
        counted = f"pg_stat_user_indexes counts {usage.scans:,} scans since {facts.usage.since}"
        size = megabytes(usage.bytes)
        covers = [
            fk
            for fk in facts.fks
            if covering(fk, index, catalog)
            and not any(covering(fk, other, catalog) for other in catalog.index_table if other != index)
        ]
        if covers:
            fk = covers[0]
            return self.finding(
                f"No audited path reads {index} ({size}; {counted}), but it is the only index foreign "
                f"key {fk.name} can use: without it every DELETE or key UPDATE of a "
                f"{catalog.qualified(fk.parent)} row scans {catalog.qualified(table)} "
                f"(~{catalog.rows.get(table, 0.0):,.0f} rows) for referencing rows ({fk.on_delete}).",
                "keep it while parent rows are deleted or re-keyed; "
                "drop it only together with the foreign key",
                severity="info",
                object=catalog.qualified(index),
            )
        if usage.scans > 0:
            return self.finding(
                f"No audited path reads {index} ({size}), yet {counted}: a statement outside the audited "
                "workload uses it.",
                "add that statement to the workload (--queries, --from-stats) to judge the index",
                severity="info",
                object=catalog.qualified(index),
            )
        return self.finding(
            f"No audited path reads {index} and {counted}: its {size} are written on every change "
            f"to {catalog.qualified(table)} for no read.",
            f"DROP INDEX CONCURRENTLY {catalog.qualified(index)}",
            object=catalog.qualified(index),
        )
