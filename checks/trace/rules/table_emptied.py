"""ADT107 table-emptied."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class TableEmptied(TraceRule):
    """A statement left a table that had rows before the migration with none.

    ## What it does
    Reports a statement that left a table that had rows before the migration with
    none. Its storage was replaced (a new `relfilenode`) by a file that holds nothing. That is what `TRUNCATE`
    does (and `TRUNCATE ... CASCADE` to every table referencing it). A rewrite of a
    table that had no rows to begin with loses nothing and is not reported here.

    ## Why is this bad?
    Every row is gone, for good once the transaction commits, while the code running
    during the deploy still reads and writes the table. `TRUNCATE` takes ACCESS
    EXCLUSIVE, so it also waits behind every query of the table and blocks all that
    arrive after it, and it fires no `ON DELETE` triggers: audit and outbox triggers
    never see the rows go.

    ## Example
    ```sql
    TRUNCATE public.measurements_2025;
    ```
    What trace observed:
    ```
    locks held   AccessExclusive public.measurements_2025
    rewritten    public.measurements_2025 (new storage, 0 bytes: emptied)
    ```

    ## Use instead
    Delete what must go in batches, outside the schema migration; for time-partitioned
    data, detach the old partition and drop it once nothing reads it:
    ```sql
    ALTER TABLE public.measurements DETACH PARTITION public.measurements_2023 CONCURRENTLY;
    DROP TABLE public.measurements_2023;  -- in a later release
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-truncate.html
    - https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE
    """

    code = "ADT107"
    name = "table-emptied"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        emptied = [r for r in seen.trace.emptied if r in seen.existing]
        if not emptied:
            return
        size = sum(seen.trace.sizes.get(r, 0) for r in emptied)
        yield self.at(
            seen,
            emptied[0],
            f"emptied {', '.join(emptied)} ({size} bytes here): every row is gone, and the code "
            "running during the deploy reads and writes it.",
            "Delete in batches what must go; drop a table only in a release after nothing uses it.",
        )
