"""ADA107 path-not-plannable."""

from __future__ import annotations

from agentddl.checks.audit.explain import ExplainError
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.planning import UnplannedRule
from agentddl.checks.core.findings import Finding


class PathNotPlannable(UnplannedRule):
    """An access path could not be planned with its example values.

    ## What it does
    Reports an access path the server refused to plan (or, under EXPLAIN ANALYZE, to
    run) with its example parameter values. The reason is the server's: a syntax or
    type error, a table or column that does not exist, an example value of the wrong
    type, the statement timeout (60 s), or a permission its production role lacks. A
    user's query is named with its file and line.

    ## Why is this bad?
    A path that cannot be planned cannot be judged: the audit cannot tell whether it is
    served by an index, so it fails rather than pass it unseen. Often the query is the
    problem (it refers to a column a migration renamed), sometimes only its example.

    ## Example
    ```sql
    -- name: by_id(run_id)
    -- example: run_id = 'not-a-uuid'
    SELECT 1 FROM agent.runs AS r WHERE r.run_id = :run_id;
    ```
    is refused:
    ```
    invalid input syntax for type uuid: "not-a-uuid"
    ```

    ## Use instead
    Fix the query, or give it an example the server accepts (a literal, an expression,
    or a sampled value such as `@hot_tenant`):
    ```sql
    -- example: run_id = gen_random_uuid()
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-explain.html
    """

    code = "ADA107"
    name = "path-not-plannable"
    severity = "error"

    def without_value(self, path: AuditPath, param: str, version: int) -> Finding:
        return self.finding(
            f"{path.name} ({path.origin}) has no value for :{param}: it is compared with no column to "
            f"sample one from, and PostgreSQL {version} has no generic plan to read (16+).",
            f"add '-- example: {param} = ...' to the query",
            object=path.name,
        )

    def refused(self, path: AuditPath, error: ExplainError) -> Finding:
        where = f" ({path.origin})" if path.kind in ("user", "stats") else ""
        return self.finding(
            f"{path.name}{where} could not be planned with its example values: {error}",
            "fix the query or its -- example: values",
            object=path.name,
        )
