"""ADV101 fk-without-index."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.catalog_rules.types import Connection, Row, Rule, VerifyContext, fetch, fetch_once
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.indexes import (
    FOREIGN_KEYS_SQL,
    INDEXES_SQL,
    LEAF_PARTITIONS_SQL,
    IndexShape,
    indexes_by_table,
    predicate_only_requires_not_null,
)


class FkWithoutIndex(Rule):
    """A foreign key whose referencing columns lead no valid B-tree index.

    ## What it does
    Reports a foreign key when no valid B-tree index on the referencing table has the
    key's columns (in any order) as its leading columns, with operator classes that
    know the key's equality operator and the columns' collations (for a one-column
    key, a hash index on the column serves as well). A partial index
    counts only when its predicate is `col IS NOT NULL` on key columns (every row a
    referential action looks for satisfies it). A partitioned table's key is reported
    once, on the partitioned table: when it has no covering partitioned index, the
    partitions without a covering index of their own are named (a warning); when every
    partition has one, the missing partitioned index is an info (new partitions won't
    get it).

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
        indexes = indexes_by_table(fetch_once(connection, context, INDEXES_SQL))
        for fk in fetch(connection, self.query, context.params):
            if covered(indexes, fk):
                continue
            if not fk["partitioned"]:
                yield self._unindexed(fk, f"CREATE INDEX CONCURRENTLY ON {fk['table_name']} ({_columns(fk)})")
                continue
            # The referential actions scan each partition: per-partition indexes serve them.
            leaves = fetch(connection, LEAF_PARTITIONS_SQL, {"fk": fk["oid"]})
            bare = [leaf["table_name"] for leaf in leaves if not covered(indexes, {**fk, **leaf})]
            # no partition yet: the partitioned table itself is the one to index
            yield self._partitioned(fk, bare if leaves else [fk["table_name"]])

    def _unindexed(self, fk: Row, fix: str, where: str = "") -> Finding:
        return self.finding(
            f"Deleting or updating a referenced row scans {where or fk['table_name']} for rows with "
            f"({_columns(fk)}): no index leads with these columns.",
            fix,
            object=f"{fk['table_name']}.{fk['name']}",
        )

    def _partitioned(self, fk: Row, bare: list[str]) -> Finding:
        # CREATE INDEX CONCURRENTLY is refused on a partitioned table: build per partition.
        fix = (
            f"CREATE INDEX ON ONLY {fk['table_name']} ({_columns(fk)}); then, per partition, "
            "CREATE INDEX CONCURRENTLY and ALTER INDEX ... ATTACH PARTITION"
        )
        if bare:
            return self._unindexed(fk, fix, ", ".join(bare))
        return self.finding(
            f"Every partition of {fk['table_name']} has an index for ({_columns(fk)}), the partitioned "
            "table has none: a partition created later gets no such index.",
            fix,
            object=f"{fk['table_name']}.{fk['name']}",
            severity="info",
        )


def _columns(fk: Row) -> str:
    return ", ".join(fk["quoted_columns"])


def covered(indexes: dict[str, list[IndexShape]], fk: Row) -> bool:
    """Whether an index of the foreign key's table (`fk["table_name"]`) covers it."""
    return any(covers_foreign_key(index, fk) for index in indexes.get(fk["table_name"], ()))


def covers_foreign_key(index: IndexShape, fk: Row) -> bool:
    """Whether `index` finds a foreign key's referencing rows by all its columns."""
    width = len(fk["attnums"])
    leading = index.keys[:width]
    # a hash index has one key and answers `=`: enough for a one-column key
    searchable = index.method == "btree" or (index.method == "hash" and width == 1)
    if not searchable or not index.valid or len(leading) < width:
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
