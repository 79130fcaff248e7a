"""ADS102 foreign-key-not-colocated."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.citus.layout import ForeignKey
from agentddl.checks.citus.types import CitusContext, Rule
from agentddl.checks.core.findings import Finding


class ForeignKeyNotColocated(Rule):
    """A foreign key between distributed tables that are not co-located, or that does not
    pair their distribution columns; or one from a distributed table to a plain local table.

    ## What it does
    For every foreign key of a distributed table (read from `schema.sql`) whose target is
    also distributed: both tables must be in one co-location group (`colocate_with` in
    `citus.sql`), and the key must pair the child's distribution column with the parent's.
    A target that is neither distributed nor a reference table is reported too.

    ## Why is this bad?
    Citus checks a foreign key on the worker that holds the child's shard, against the
    parent's shard on the same node: that works only when the rows a key joins live in
    co-located shards, which the distribution column guarantees. Citus refuses such a key
    at `create_distributed_table` ("cannot create foreign key constraint since relations
    are not colocated or not referencing a reference table").

    ## Example
    ```sql
    SELECT create_distributed_table('agent.runs', 'tenant_id', colocate_with => 'none');
    SELECT create_distributed_table('agent.attempts', 'tenant_id', colocate_with => 'none');
    ```

    ## Use instead
    ```sql
    SELECT create_distributed_table('agent.runs', 'tenant_id', colocate_with => 'none');
    SELECT create_distributed_table('agent.attempts', 'tenant_id', colocate_with => 'agent.runs');
    ```

    ## References
    - https://docs.citusdata.com/en/stable/sharding/data_modeling.html#co-location
    - https://docs.citusdata.com/en/stable/develop/reference_ddl.html#foreign-keys
    """

    code = "ADS102"
    name = "foreign-key-not-colocated"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        layout = context.layout
        for fk in layout.foreign_keys:
            child = layout.distributed(fk.table)
            if child is None or layout.is_reference(fk.ref_table):
                continue
            parent = layout.distributed(fk.ref_table)
            if parent is None:
                yield self._found(fk, f"references {fk.ref_table}, which is neither distributed nor a "
                                  "reference table: Citus refuses it", "distribute the target co-located, "
                                  "or make it a reference table")  # fmt: skip
            elif parent.group != child.group:
                yield self._found(fk, f"joins {fk.table} and {fk.ref_table}, which are not co-located "
                                  f"({child.group} vs {parent.group}): Citus refuses it",
                                  f"create_distributed_table({fk.table!r}, ..., colocate_with => "
                                  f"{fk.ref_table!r})")  # fmt: skip
            elif (child.column, parent.column) not in set(zip(fk.columns, fk.ref_columns, strict=False)):
                yield self._found(fk, f"does not pair {child.column} with {fk.ref_table}.{parent.column}: "
                                  "its rows may be on another shard, and Citus refuses it",
                                  f"include {child.column} on both sides of the key")  # fmt: skip

    def _found(self, fk: ForeignKey, why: str, fix: str) -> Finding:
        return self.finding(
            f"foreign key {fk.name} ({', '.join(fk.columns)}) {why}.",
            fix,
            file=fk.file,
            line=fk.line,
            column=fk.column,
            object=f"{fk.table}.{fk.name}",
        )
