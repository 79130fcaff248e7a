"""ADV104 invalid-index."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.indexes import INDEXES_SQL, index_shape, indexes_by_table


class InvalidIndex(Rule):
    """An index marked invalid (`indisvalid = false`).

    ## What it does
    Reports indexes PostgreSQL marks invalid: left by a `CREATE INDEX CONCURRENTLY`
    or `REINDEX CONCURRENTLY` that failed or was cancelled, or a partitioned index
    some partition has no attached index for. An index still being built right now
    (listed in `pg_stat_progress_create_index`) is not reported. When a valid index
    with the same definition exists (the `_ccnew` copy a failed `REINDEX
    CONCURRENTLY` leaves), the fix is to drop the invalid one; `duplicate-index`
    leaves invalid indexes to this rule.

    ## Why is this bad?
    The planner never uses an invalid index, yet (once ready) every write still
    maintains it. A unique one may not enforce uniqueness for rows written while it
    was built. Queries that were meant to use it scan instead.

    ## Example
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY operations_key ON agent.operations (idempotency_key);
    -- ERROR: could not create unique index ... Key ... is duplicated.
    ```

    ## Use instead
    Fix the cause (e.g. the duplicates), then rebuild it:
    ```sql
    REINDEX INDEX CONCURRENTLY agent.operations_key;
    -- or: DROP INDEX CONCURRENTLY agent.operations_key; CREATE ... CONCURRENTLY again
    ```
    For a partitioned index, create the missing partition's index and
    `ALTER INDEX ... ATTACH PARTITION` it.

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    """

    code = "ADV104"
    name = "invalid-index"
    severity = "error"
    group = "generic"
    query = INDEXES_SQL

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        by_table = indexes_by_table(rows)
        for row in rows:
            if row["is_valid"] or row["being_built"]:
                continue
            invalid = index_shape(row)
            twin = next((i for i in by_table[invalid.table] if i.valid and i.same_definition(invalid)), None)
            yield self.finding(
                f"{invalid.name} is invalid: no query uses it, yet writes to "
                f"{invalid.table} may still maintain it.",
                f"DROP INDEX CONCURRENTLY {invalid.name} ({twin.name} is the same index, valid)"
                if twin
                else f"REINDEX INDEX CONCURRENTLY {invalid.name} (after fixing why it failed)",
                object=invalid.name,
            )
