"""ADL004: Alembic revisions that form more than one head."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class MultipleHeads(Rule):
    """
    ## What it does
    Reports the Alembic revisions of a folder or environment named on the command line
    (revision files named one by one are a selection, not judged) that form two or more
    heads: two revisions that name the same `down_revision`, typically one
    from each of two branches merged into main. The finding is on each head's
    `revision = ...` line and names every head. Heads that branch labels tell apart
    (`branch_labels`, independent lines of migrations on purpose) are not reported.

    ## Why is this bad?
    `alembic upgrade head` refuses to run ("Multiple head revisions are present for
    given argument 'head'"), so the deploy stops; `alembic upgrade heads` runs both
    lines in an order nobody chose, and two changes written against the same schema
    (a column renamed on one line, used on the other) meet for the first time in
    production.

    ## Example
    ```python
    # versions/0003_add_trace.py        # versions/0003_add_owner.py
    revision = "a1b2"                   revision = "c3d4"
    down_revision = "9f00"              down_revision = "9f00"
    ```

    ## Use instead
    ```console
    alembic merge -m "merge a1b2 and c3d4" a1b2 c3d4
    ```
    A merge revision with both heads as its `down_revision`; or rebase the newer
    revision onto the other head (`down_revision = "a1b2"`) while it is not deployed.

    ## In an Alembic migration
    Only Alembic revisions have this finding; `alembic heads` lists the heads.

    ## References
    - https://alembic.sqlalchemy.org/en/latest/branches.html
    """

    code = "ADL004"
    name = "multiple-heads"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the linter's input reader from the revision graph
