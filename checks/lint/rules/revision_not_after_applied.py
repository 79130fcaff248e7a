"""ADL005: an Alembic revision out of order with the version a database is at."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class RevisionNotAfterApplied(Rule):
    """
    ## What it does
    With `--schema-from DSN` naming a database that has an `alembic_version` table,
    compares the revisions of each folder or environment named on the command line with
    the version(s) the database is at:
    - a head whose `down_revision` chain does not pass through an applied version (it
      branches off below it, or on another line): `alembic upgrade head` does not reach
      it from there, or refuses for multiple heads;
    - an applied version none of the revisions is (the database was upgraded from
      another branch, or the revision was deleted): `alembic upgrade` fails with
      "Can't locate revision";
    - with `--changed-since`, a revision added or changed on the branch that the
      database already counts as applied (it is the applied version, or below it):
      Alembic skips it, and its changes never run.

    The chain must be complete (every parent among the revisions linted) for the first
    two; a revision linted alone is not judged.

    ## Why is this bad?
    Alembic stores only the heads a database is at and decides what to run from the
    revision graph. A revision inserted below the applied version (its `down_revision`
    edited to an old revision) is never run on that database, silently; one on a line
    that does not descend from it is not run by `upgrade head`, or stops the deploy.
    Either way the schema in production differs from the one the code expects.

    ## Example
    ```python
    # the database is at "b7e1"; this revision was written against "9f00", below it
    revision = "c3d4"
    down_revision = "9f00"
    ```

    ## Use instead
    ```python
    revision = "c3d4"
    down_revision = "b7e1"  # after the version production is at
    ```
    Or `alembic merge` the two heads.

    ## In an Alembic migration
    Only Alembic revisions have this finding; `alembic current` shows the version a
    database is at, `alembic history` the chain.

    ## References
    - https://alembic.sqlalchemy.org/en/latest/branches.html
    - https://alembic.sqlalchemy.org/en/latest/api/script.html
    """

    code = "ADL005"
    name = "revision-not-after-applied"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        return iter(())  # reported by the linter's input reader from the revision graph
