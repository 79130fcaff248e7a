"""ADL002: an ignore comment without a reason."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class IgnoreWithoutReason(Rule):
    """
    ## What it does
    Reports an ignore comment with nothing after the closing bracket. The suppression
    still applies; only the missing reason is reported.

    ## Why is this bad?
    A suppression is a decision that a hazard is acceptable here. Without the reason the
    next reviewer cannot tell whether it still holds (is the table still tiny?).

    ## Example
    ```sql
    -- agentddl: ignore[require-concurrent-index-creation]
    CREATE INDEX idx_flags_name ON flags (name);
    ```

    ## Use instead
    ```sql
    -- agentddl: ignore[require-concurrent-index-creation] flags: 12 rows, capped by design
    CREATE INDEX idx_flags_name ON flags (name);
    ```

    ## In an Alembic migration
    Put the ignore comment with its reason inside the SQL passed to `op.execute()`.

    ## References
    - https://docs.astral.sh/ruff/linter/#error-suppression
    """

    code = "ADL002"
    name = "ignore-without-reason"
    severity = "warning"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the engine while reading suppressions
