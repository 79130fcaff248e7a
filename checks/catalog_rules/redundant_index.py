"""ADV103 redundant-index."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.duplicate_index import duplicates
from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.indexes import INDEXES_SQL, IndexShape, covers_prefix, indexes_by_table


class RedundantIndex(Rule):
    """A B-tree index whose keys lead a wider index on the same table.

    ## What it does
    Reports a non-unique B-tree index when another valid B-tree index on the same
    table starts with the same keys (same column or expression, operator class,
    collation and sort order, position by position), has the same predicate, and
    holds its INCLUDE columns. Unique indexes and indexes backing a constraint are
    never reported: the wider index does not enforce their uniqueness. Key order counts
    up to direction (a B-tree is read backwards too: `(a DESC)` leads `(a, b)`).
    Indexes with identical definitions are left to `duplicate-index`, and an index
    it reports is not reported here again.

    ## Why is this bad?
    Every scan the narrow index serves, the wide one serves as well (a B-tree is
    searchable by any prefix of its keys), so the narrow one only costs writes,
    vacuum and cache.

    ## Example
    ```sql
    CREATE INDEX runs_tenant_idx ON agent.runs (tenant_id);
    -- runs_pkey is (tenant_id, run_id)
    ```

    ## Use instead
    ```sql
    DROP INDEX CONCURRENTLY agent.runs_tenant_idx;
    ```
    Keep it only when EXPLAIN shows the planner prefers it for a hot query (a much
    smaller index can win for index-only scans): then say why in its comment.

    ## References
    - https://www.postgresql.org/docs/current/indexes-multicolumn.html
    """

    code = "ADV103"
    name = "redundant-index"
    severity = "warning"
    group = "generic"
    query = INDEXES_SQL

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for indexes in indexes_by_table(rows).values():
            for narrow, wide in redundant(indexes):
                yield self.finding(
                    f"{wide.name} starts with every key of {narrow.name} and serves all its scans; "
                    f"{narrow.name} only slows writes to {narrow.table}.",
                    f"DROP INDEX CONCURRENTLY {narrow.name}",
                    object=narrow.name,
                )


def redundant(indexes: Sequence[IndexShape]) -> Iterator[tuple[IndexShape, IndexShape]]:
    """(narrow, wide) pairs: narrow is valid and not unique, wide is valid and serves its
    scans. Duplicates are duplicate-index's, invalid indexes invalid-index's: neither
    side of a pair is one."""
    copies = {duplicate.name for duplicate, _ in duplicates(indexes)}
    candidates = [index for index in indexes if index.valid and index.name not in copies]
    for narrow in candidates:
        if narrow.unique or narrow.backs_constraint or narrow.attached:
            continue  # the wide index doesn't enforce its uniqueness
        wide = next(
            (w for w in candidates if not w.same_definition(narrow) and covers_prefix(narrow, w)),
            None,
        )
        if wide is not None:
            yield narrow, wide
