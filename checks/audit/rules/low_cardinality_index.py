"""ADA112 low-cardinality-index."""

from __future__ import annotations

from agentddl.checks.audit.hygiene import IndexFacts, IndexRule
from agentddl.checks.core.findings import Finding

LOW_DISTINCT = 10  # a full (non-partial) single-column B-tree on fewer distinct values is low-cardinality
LOW_CARDINALITY_MIN_ROWS = 10_000  # on a smaller table few distinct values is no verdict


class LowCardinalityIndex(IndexRule):
    """A full single-column B-tree index on a column with few distinct values.

    ## What it does
    Reports a non-unique, non-partial, single-column B-tree index on a table of 10,000
    rows or more whose column has fewer than 10 distinct values according to `pg_stats`
    (after the seed's ANALYZE): a status, a kind, a flag.

    ## Why is this bad?
    Each key matches a large share of the table, so the planner rarely uses the index
    (reading a tenth of the table through an index is slower than reading it whole), but
    every insert and every update of the column still pays for it. The queries that need
    such a column look for one hot value ("queued", "pending"), which a partial index
    serves at a fraction of the size.

    ## Example
    ```sql
    CREATE INDEX runs_status_idx ON agent.runs (status);
    ```
    with
    ```
    SELECT n_distinct FROM pg_stats WHERE tablename = 'runs' AND attname = 'status';
     n_distinct
    ------------
              6
    ```

    ## Use instead
    A partial index on the value the queries look for, keyed on what they order or
    filter by next, or a composite index led by a selective column:
    ```sql
    CREATE INDEX CONCURRENTLY runs_claim_idx ON agent.runs (priority DESC, wake_at)
        WHERE status = 'queued';
    ```

    ## References
    - https://www.postgresql.org/docs/current/indexes-partial.html
    - https://www.postgresql.org/docs/current/view-pg-stats.html
    """

    code = "ADA112"
    name = "low-cardinality-index"
    severity = "warning"

    def check(self, seen: IndexFacts) -> list[Finding]:
        catalog = seen.catalog
        findings = []
        for index, columns in sorted(catalog.index_columns.items()):
            table = catalog.index_table[index]
            partial, method = index in catalog.partial, catalog.methods.get(index, "btree")
            small = catalog.rows.get(table, 0.0) < LOW_CARDINALITY_MIN_ROWS  # its stats say little
            if len(columns) != 1 or partial or method != "btree" or index in catalog.unique or small:
                continue
            n_distinct, _ = seen.stats.get((table, columns[0]), (0.0, ""))
            distinct = n_distinct if n_distinct > 0 else -n_distinct * catalog.rows.get(table, 0.0)
            if 0 < distinct < LOW_DISTINCT:
                findings.append(
                    self.finding(
                        f"{index} indexes {table}.{columns[0]}, which has ~{distinct:.0f} distinct "
                        "values: each key matches a large share of the table, so the planner rarely "
                        "uses it.",
                        f"make it partial on the value the queries look for (WHERE {columns[0]} = ...) "
                        "or lead a composite with it",
                        object=f"{catalog.schema}.{index}",
                    )
                )
        return findings
