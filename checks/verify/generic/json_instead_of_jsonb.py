"""ADV109 json-instead-of-jsonb."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.columns import columns_of_type


class JsonInsteadOfJsonb(Rule):
    """A column of type `json` rather than `jsonb`.

    ## What it does
    Reports columns of type `json` (and arrays of it, and domains over either).

    ## Why is this bad?
    `json` stores the text as written and re-parses it on every access; it has no
    equality operator (so no `DISTINCT`, `GROUP BY`, unique index or comparison of
    payloads), no GIN indexing, and none of the containment operators (`@>`, `?`)
    that payload checks rely on. Duplicate keys are kept, so two readers may see
    different values for one key.

    ## Example
    ```sql
    CREATE TABLE agent.events_raw (id bigint PRIMARY KEY, payload json NOT NULL);
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.events_raw (id bigint PRIMARY KEY, payload jsonb NOT NULL);
    ```
    Keep `json` only when the exact input text (key order, whitespace) must be
    preserved, and say so in the column's comment.

    ## References
    - https://www.postgresql.org/docs/current/datatype-json.html
    """

    code = "ADV109"
    name = "json-instead-of-jsonb"
    severity = "warning"
    group = "generic"
    query = columns_of_type("json")

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            column = f"{row['table_name']}.{row['column_name']}"
            yield self.finding(
                f"{column} is {row['type']}: re-parsed on every read, not comparable, not indexable.",
                f"ALTER TABLE {row['table_name']} ALTER COLUMN {row['column_name']} TYPE jsonb "
                f"USING {row['column_name']}::jsonb (rewrites the table: plan it)",
                object=column,
            )
