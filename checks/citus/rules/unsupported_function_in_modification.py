"""ADS105 unsupported-function-in-modification."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentddl.checks.citus.types import CitusContext, Rule
from agentddl.checks.citus.volatility import modification_problems
from agentddl.checks.core.findings import Finding

WHY = {
    "volatile-where": "a VOLATILE function in the WHERE clause of a modification",
    "stable-with-columns": "a STABLE function applied to column references in an UPDATE",
    "case-coalesce": "a non-IMMUTABLE function inside CASE or COALESCE in a modification",
    "returning": "a non-IMMUTABLE function in RETURNING",
}


class UnsupportedFunctionInModification(Rule):
    """A function Citus refuses inside an UPDATE, DELETE or INSERT of a distributed table.

    ## What it does
    In every modification of every named query (data-modifying CTEs included), reports
    a VOLATILE function in a WHERE clause (`pg_try_advisory_xact_lock`, `random()`), a
    STABLE function or timestamptz arithmetic applied to column references in an UPDATE
    (`now() + r.attempt_count * interval '1 second'`), a non-IMMUTABLE function inside
    CASE or COALESCE (`CASE WHEN done THEN now() END`), and a non-IMMUTABLE function in
    RETURNING. Volatility is known by name for common functions (others are taken as
    IMMUTABLE), and `+`/`-` over `now()` and a column counts as timestamptz arithmetic.

    ## Why is this bad?
    Citus evaluates a modification's STABLE functions on the coordinator before it sends
    the statement to a shard, so that every placement stores the same value; it cannot
    do that for a function whose value depends on the row, or that must run once per row,
    or that sits in a branch it cannot decide. It refuses the statement ("functions used
    in the WHERE clause of modification queries on distributed tables must not be
    VOLATILE", "STABLE functions used in UPDATE queries cannot be called with column
    references", "non-IMMUTABLE functions are not allowed in CASE or COALESCE
    statements"). Plain PostgreSQL runs it, so no single-server test notices.

    ## Example
    ```sql
    UPDATE agent.outbox AS m
    SET dead_at = CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END
    WHERE m.tenant_id = :tenant_id AND m.message_id = :message_id;
    ```

    ## Use instead
    ```sql
    WITH due AS (
        SELECT m.tenant_id, m.message_id,
            CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END AS dead_at
        FROM agent.outbox AS m
        WHERE m.tenant_id = :tenant_id AND m.message_id = :message_id
        FOR UPDATE
    )
    UPDATE agent.outbox AS m SET dead_at = d.dead_at
    FROM due AS d
    WHERE m.tenant_id = :tenant_id AND m.message_id = d.message_id;
    ```
    (the value is computed in a SELECT, which Citus sends to the shard as it is), or pass
    the time as a parameter.

    ## References
    - https://learn.microsoft.com/azure/cosmos-db/postgresql/reference-limits (General)
    - https://docs.citusdata.com/en/stable/develop/reference_dml.html
    """

    code = "ADS105"
    name = "unsupported-function-in-modification"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        columns, layout = context.columns, context.layout

        def distributed(relation: Any) -> bool:
            return layout.resolve(relation.schemaname, str(relation.relname)) in columns

        for query_file in context.query_files:
            for query in query_file.queries:
                for problem in modification_problems(query.statement, distributed):
                    line, column = query_file.source.position(problem.location)
                    yield self.finding(
                        f"{query.name}: {problem.function}: {WHY[problem.problem]}, which Citus refuses "
                        "on a distributed table.",
                        "compute the value in a SELECT (a CTE) and assign it, or pass it as a parameter",
                        file=query_file.source.path,
                        line=line,
                        column=column,
                    )
