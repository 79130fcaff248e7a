"""ADV102 duplicate-index."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.indexes import INDEXES_SQL, IndexShape, indexes_by_table


class DuplicateIndex(Rule):
    """Two indexes on one table with the same definition.

    ## What it does
    Reports an index whose method, key columns and expressions (with operator
    classes, collations and sort order), INCLUDE columns, predicate and uniqueness
    are all those of another index on the same table. Sort order counts only up to
    direction: a B-tree is read backwards as well as forwards, so `(a DESC)` (that is
    `DESC NULLS FIRST`) duplicates `(a)`, while `(a NULLS FIRST)` does not. The one
    kept is the primary key, else one that backs a constraint, else the first by
    name; dropping a constraint's copy means dropping the constraint. A partition's
    indexes attached to its parent's are reported once, on the parent.

    ## Why is this bad?
    Every insert and every non-HOT update writes both, vacuum scans both, the buffer
    cache holds both, and the planner gains nothing: the second copy is pure cost,
    often left behind by a retried migration or an ORM that also declared it.

    ## Example
    ```sql
    CREATE INDEX outbox_run_idx ON agent.outbox (tenant_id, run_id);
    CREATE INDEX outbox_run_idx1 ON agent.outbox (tenant_id, run_id);
    ```

    ## Use instead
    ```sql
    DROP INDEX CONCURRENTLY agent.outbox_run_idx1;
    ```

    ## References
    - https://www.postgresql.org/docs/current/indexes-intro.html
    """

    code = "ADV102"
    name = "duplicate-index"
    severity = "warning"
    group = "generic"
    query = INDEXES_SQL

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for indexes in indexes_by_table(rows).values():
            for duplicate, kept in duplicates(indexes):
                yield self.finding(
                    f"{duplicate.name} is the same index as {kept.name}: every write to "
                    f"{duplicate.table} maintains it for no read it serves.",
                    drop_fix(duplicate),
                    object=duplicate.name,
                )


def drop_fix(index: IndexShape) -> str:
    """How to drop `index`: its constraint, when it backs one (DROP INDEX is refused)."""
    if index.constraint is None:
        return f"DROP INDEX CONCURRENTLY {index.name}"
    return (
        f"ALTER TABLE {index.table} DROP CONSTRAINT {index.constraint} "
        "(foreign keys that use its index must be moved to the other one first)"
    )


def duplicates(indexes: Sequence[IndexShape]) -> Iterator[tuple[IndexShape, IndexShape]]:
    """(duplicate, kept) pairs; the primary key is kept first, then constraint-backing
    indexes, then the first by name."""
    kept: list[IndexShape] = []
    valid = [index for index in indexes if index.valid]  # invalid ones are invalid-index's
    for index in sorted(valid, key=lambda i: (not i.primary, not i.backs_constraint, i.name)):
        same = next((k for k in kept if k.same_definition(index)), None)
        if same is None:
            kept.append(index)
        elif not index.attached:
            yield index, same
