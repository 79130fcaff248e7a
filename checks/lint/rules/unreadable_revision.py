"""ADL003: an Alembic revision the linter could not read (render offline) to the end."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class UnreadableRevision(Rule):
    """
    ## What it does
    Reports an Alembic revision whose SQL the linter could not read to the end: the
    script does not import (a missing module), or Alembic's offline mode (`alembic
    upgrade --sql`, which the linter reads) stops inside `upgrade()`, typically because
    it reads data through `op.get_bind()`, which returns nothing offline. The finding is
    at the line where rendering stopped and says why; what rendered before that line is
    still linted, nothing after it is. A script that is not valid Python is reported
    as `syntax-error`.

    ## Why is this bad?
    A revision the linter could not read is a revision it cannot vouch for: every
    statement after the stop, an index build or a table rewrite included, reaches
    production unchecked. As a warning it let CI pass a migration that was never
    read, so it is an error: the revision either renders offline, or someone decides,
    in the configuration or with an ignore comment, that it does not have to.

    ## Example
    ```python
    def upgrade():
        rows = op.get_bind().execute(sa.text("SELECT id FROM agent.runs")).fetchall()
        op.create_index("runs_status_idx", "runs", ["status"], schema="agent")
    ```

    ## Use instead
    Keep schema changes in `op.*` and `op.execute()` calls that render offline, and
    move data reads into a data migration of their own:
    ```python
    def upgrade():
        with op.get_context().autocommit_block():
            op.create_index("runs_status_idx", "runs", ["status"], schema="agent",
                            postgresql_concurrently=True)
    ```

    ## In an Alembic migration
    Only Alembic revisions have this finding. A data migration that must read rows can
    say so: `# agentddl: ignore-file[unreadable-revision] data migration, no DDL`, or
    `[tool.agentddl.rules] unreadable-revision = "warning"` for the whole project.

    ## References
    - https://alembic.sqlalchemy.org/en/latest/offline.html
    """

    code = "ADL003"
    name = "unreadable-revision"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the linter's input reader when rendering fails
