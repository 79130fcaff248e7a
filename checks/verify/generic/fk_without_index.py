"""ADV101 fk-without-index."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.findings import Finding
from agentddl.checks.verify.indexes import (
    FOREIGN_KEYS_SQL,
    INDEXES_SQL,
    IndexShape,
    indexes_by_table,
    predicate_only_requires_not_null,
)
from agentddl.checks.verify.types import Connection, Row, Rule, VerifyContext, fetch


class FkWithoutIndex(Rule):
    """A foreign key whose referencing columns lead no valid B-tree index.

    ## What it does
    Reports a foreign key when no valid B-tree index on the referencing table has the
    key's columns (in any order) as its leading columns, with operator classes that
    know the key's equality operator and the columns' collations. A partial index
    counts only when its predicate is `col IS NOT NULL` on key columns (every row a
    referential action looks for satisfies it). A partitioned table's key is checked
    once, on the partitioned table and its partitioned indexes.

    ## Why is this bad?
    Deleting or re-keying a parent row makes PostgreSQL look for referencing rows
    (`ON DELETE CASCADE`, `RESTRICT`, `NO ACTION` alike). Without an index that is a
    sequential scan of the child table per parent row, under a lock on the parent row:
    a tenant or run deletion becomes minutes of scanning, and a cascade multiplies it.

    ## Example
    ```sql
    CREATE TABLE agent.steps (
        tenant_id uuid NOT NULL, run_id uuid NOT NULL, n int NOT NULL,
        PRIMARY KEY (tenant_id, n),
        FOREIGN KEY (tenant_id, run_id) REFERENCES agent.runs (tenant_id, run_id)
    );
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY steps_run_idx ON agent.steps (tenant_id, run_id);
    ```
    or order the primary key so the foreign key's columns lead it.

    ## References
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    """

    code = "ADV101"
    name = "fk-without-index"
    severity = "warning"
    group = "generic"
    query = FOREIGN_KEYS_SQL

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        indexes = indexes_by_table(fetch(connection, INDEXES_SQL, context.params))
        for fk in fetch(connection, self.query, context.params):
            if not any(covers_foreign_key(index, fk) for index in indexes.get(fk["table_name"], ())):
                yield self.finding(
                    f"{fk['table_name']}.{fk['name']}",
                    f"Deleting or updating a referenced row scans {fk['table_name']} for rows with "
                    f"({', '.join(fk['quoted_columns'])}): no index leads with these columns.",
                    f"CREATE INDEX CONCURRENTLY ON {fk['table_name']} ({', '.join(fk['quoted_columns'])})",
                )


def covers_foreign_key(index: IndexShape, fk: Row) -> bool:
    """Whether `index` finds a foreign key's referencing rows by all its columns."""
    width = len(fk["attnums"])
    leading = index.keys[:width]
    if index.method != "btree" or not index.valid or len(leading) < width:
        return False
    if {key[0] for key in leading} != set(fk["attnums"]):
        return False
    if not predicate_only_requires_not_null(index.predicate, fk["columns"]):
        return False
    position = {key[0]: i for i, key in enumerate(leading)}
    for attnum, collation, families in zip(fk["attnums"], fk["collations"], fk["eq_families"], strict=True):
        i = position[attnum]
        if leading[i][2] != collation or str(index.opfamilies[i]) not in families.strip("{}").split(","):
            return False
    return True
