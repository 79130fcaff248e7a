"""ADS103 reference-references-distributed."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.citus.types import CitusContext, Rule
from agentddl.checks.core.findings import Finding


class ReferenceReferencesDistributed(Rule):
    """A foreign key from a reference table (or a plain local table) to a distributed table.

    ## What it does
    For every foreign key whose target `citus.sql` distributes, reports it when the
    referencing table is a reference table (`create_reference_table`) or is not placed by
    `citus.sql` at all.

    ## Why is this bad?
    A reference table is copied whole to every node, but the distributed table's rows live
    on one shard each: no node can check the key, and Citus refuses it ("cannot create
    foreign key constraint since foreign keys from reference tables and local tables to
    distributed tables are not supported").

    ## Example
    ```sql
    -- tenants is a reference table
    ALTER TABLE agent.tenants ADD FOREIGN KEY (tenant_id, last_run_id)
        REFERENCES agent.runs (tenant_id, run_id);
    ```

    ## Use instead
    Turn it around (the distributed table references the reference table), or keep the
    pointer without a foreign key and check it in the named query that sets it.

    ## References
    - https://docs.citusdata.com/en/stable/develop/reference_ddl.html#foreign-keys
    """

    code = "ADS103"
    name = "reference-references-distributed"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        layout = context.layout
        for fk in layout.foreign_keys:
            if layout.distributed(fk.ref_table) is None or layout.distributed(fk.table) is not None:
                continue
            kind = "reference table" if layout.is_reference(fk.table) else "local table"
            yield self.finding(
                f"foreign key {fk.name} from {kind} {fk.table} references distributed {fk.ref_table}: "
                "no node holds both sides, and Citus refuses it.",
                "reference the reference table from the distributed one instead, or drop the key",
                file=fk.file,
                line=fk.line,
                column=fk.column,
                object=f"{fk.table}.{fk.name}",
            )
