"""ADL001: an ignore comment that suppresses nothing."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class UnusedIgnore(Rule):
    """
    ## What it does
    Reports an `-- agentddl: ignore[rule-name] reason` (or `ignore-file[...]`) comment
    that suppresses no finding: the rule did not fire on that statement, or the rule
    name is misspelled.

    ## Why is this bad?
    A stale ignore hides the next real hazard on that line, and a misspelled one gives
    false comfort: the reader believes a finding was reviewed when none was matched.

    ## Example
    ```sql
    -- agentddl: ignore[require-concurrent-index] table is tiny
    CREATE INDEX CONCURRENTLY idx_runs_status ON runs (status);
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY idx_runs_status ON runs (status);
    ```

    ## In an Alembic migration
    Put ignores in the SQL you pass to `op.execute()`; they travel into the offline SQL
    the linter reads.

    ## References
    - https://docs.astral.sh/ruff/rules/unused-noqa/
    """

    code = "ADL001"
    name = "unused-ignore"
    severity = "warning"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the engine after suppressions are applied
