"""ADA113 index-on-json-blob."""

from __future__ import annotations

from agentddl.checks.audit.hygiene import IndexFacts, IndexRule
from agentddl.checks.core.findings import Finding


class IndexOnJsonBlob(IndexRule):
    """A B-tree or hash index keyed on a whole JSON document.

    ## What it does
    Reports a B-tree or hash index with a `json` or `jsonb` column as a key: the whole
    document is the key. GIN indexes on `jsonb` (containment, key existence) are not
    reported: they are the index made for documents.

    ## Why is this bad?
    The key is the entire document: large entries (a B-tree entry must fit in a third
    of a page, so a large payload fails the insert), rewritten on every change to any
    field, and useful only for comparing whole documents, which no query does. The
    queries that look into a document want one field, or containment.

    ## Example
    ```sql
    CREATE INDEX runs_input_idx ON agent.runs (input);   -- input jsonb
    ```

    ## Use instead
    Index the extracted field the queries compare, or use GIN for containment:
    ```sql
    CREATE INDEX CONCURRENTLY runs_input_model_idx ON agent.runs ((input->>'model'));
    CREATE INDEX CONCURRENTLY runs_input_gin ON agent.runs USING gin (input jsonb_path_ops);
    ```

    ## References
    - https://www.postgresql.org/docs/current/datatype-json.html#JSON-INDEXING
    - https://www.postgresql.org/docs/current/indexes-expressional.html
    """

    code = "ADA113"
    name = "index-on-json-blob"
    severity = "warning"

    def check(self, seen: IndexFacts) -> list[Finding]:
        """B-tree (or hash) keys on a whole JSON document; GIN on jsonb is the index made for it."""
        catalog = seen.catalog
        return [
            self.finding(
                f"{index} keys on {catalog.index_table[index]}.{column}, a JSON document: large, "
                "rewritten on every change and compared whole.",
                "index the extracted field instead ((payload->>'field')), or use GIN for containment",
                object=f"{catalog.schema}.{index}",
            )
            for index, columns in sorted(catalog.index_columns.items())
            for column in columns
            if seen.stats.get((catalog.index_table[index], column), (0.0, ""))[1] in ("json", "jsonb")
            and catalog.methods.get(index, "btree") in ("btree", "hash")
        ]
