"""ADV108 varchar-length."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.columns import columns_of_type


class VarcharLength(Rule):
    """A `varchar(n)` column (a length limit in the type).

    ## What it does
    Reports columns of type `character varying(n)` (and arrays of it, and domains
    over either). Unbounded `varchar` and `text` are not reported.

    ## Why is this bad?
    The limit is part of the type: lowering it rewrites or rescans the table under
    ACCESS EXCLUSIVE, and the error a too-long value raises names no constraint. A
    `CHECK (char_length(col) <= n)` on `text` stores the same, can be added
    `NOT VALID` and validated without blocking writes, and is dropped or changed
    without touching the rows.

    ## Example
    ```sql
    CREATE TABLE agent.tools (name varchar(64) PRIMARY KEY);
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.tools (
        name text PRIMARY KEY CONSTRAINT tools_name_length CHECK (char_length(name) <= 64)
    );
    ```

    ## References
    - https://wiki.postgresql.org/wiki/Don%27t_Do_This#Don.27t_use_varchar.28n.29_by_default
    - https://www.postgresql.org/docs/current/datatype-character.html
    """

    code = "ADV108"
    name = "varchar-length"
    severity = "info"
    group = "generic"
    query = columns_of_type("varchar")

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            if row["typmod"] < 0:  # varchar without a length: just text
                continue
            column = f"{row['table_name']}.{row['column_name']}"
            yield self.finding(
                f"{column} is {row['type']}: changing the limit later locks and rewrites or "
                "rescans the table.",
                f"use text with CHECK (char_length({row['column_name']}) <= n)",
                object=column,
            )
