"""ADS101 unique-without-distribution-column."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.citus.types import CitusContext, Rule
from agentddl.checks.core.findings import Finding


class UniqueWithoutDistributionColumn(Rule):
    """A primary key, unique constraint or unique index of a distributed table that leaves
    out the distribution column.

    ## What it does
    For every table `citus.sql` distributes with `create_distributed_table`, reads its
    primary key, unique constraints and unique indexes from `schema.sql` and requires each
    to list the distribution column (the tenant column) as one of its key columns.

    ## Why is this bad?
    Citus enforces uniqueness shard by shard: a key without the distribution column would
    have to be checked across every shard, which Citus does not do. `create_distributed_table`
    fails on such a table ("cannot create constraint ... that does not include the partition
    column"), and a unique index added later is refused the same way.

    ## Example
    ```sql
    CREATE TABLE agent.operations (tenant_id uuid, idempotency_key text, ...,
        CONSTRAINT operations_key UNIQUE (idempotency_key));
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.operations (tenant_id uuid, idempotency_key text, ...,
        CONSTRAINT operations_key UNIQUE (tenant_id, idempotency_key));
    ```

    ## References
    - https://docs.citusdata.com/en/stable/develop/reference_ddl.html#constraints
    - https://docs.citusdata.com/en/stable/develop/api_udf.html#create-distributed-table
    """

    code = "ADS101"
    name = "unique-without-distribution-column"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        for key in context.layout.keys:
            placement = context.layout.distributed(key.table)
            if placement is None or placement.column in key.columns:
                continue
            yield self.finding(
                f"{key.kind} {key.name} ({', '.join(key.columns) or 'an expression'}) on distributed "
                f"{key.table} leaves out {placement.column}: Citus cannot enforce it across shards and "
                "refuses to distribute the table.",
                f"add {placement.column} to {key.name}'s columns",
                file=key.file,
                line=key.line,
                column=key.column,
                object=f"{key.table}.{key.name}",
            )
