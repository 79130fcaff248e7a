"""ADL000: the framework reports SQL that PostgreSQL cannot parse."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class UnparseableSql(Rule):
    """
    ## What it does
    Reports a migration file that PostgreSQL's own parser (via pglast) rejects, at the
    line and column of the error. Nothing else in that file is linted.

    ## Why is this bad?
    The migration fails when it runs, possibly halfway through. And a file the linter
    cannot parse is a file it cannot vouch for: every other rule is silent on it.

    ## Example
    ```sql
    CREATE INDEKS idx_runs_status ON runs (status);
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY idx_runs_status ON runs (status);
    ```

    ## In an Alembic migration
    The linter reads what `alembic upgrade --sql` prints, so a malformed `op.execute()`
    string shows up here, reported at the revision file. A revision script that is not
    valid Python is reported here too; one that does not import, or whose offline
    rendering stops (e.g. `op.get_bind()` reading rows, which returns nothing offline),
    is `unreadable-revision`.

    ## References
    - https://www.postgresql.org/docs/current/sql-syntax.html
    """

    code = "ADL000"
    name = "syntax-error"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the engine when parsing fails
