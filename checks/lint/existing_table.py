"""`ExistingTableRule`: a lint rule judging the `ALTER TABLE` of a table that existed
before the migration (a table created in it is empty: nothing to scan, nothing to fail).

Its subclass writes `check_table(statement, context, table)`, its own judgement of the
statement, and is called only when `table` existed before; the finding the engine makes
of each violation is the subclass's, as with any `Rule`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from pglast import ast

from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.columns import existing_altered_table


class ExistingTableRule(Rule):
    """Base of the rules that judge `ALTER TABLE` on a table older than the migration."""

    node_types: ClassVar[tuple[type, ...]] = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        table = existing_altered_table(statement, context)
        if table is not None:
            yield from self.check_table(statement, context, table)

    def check_table(self, statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
        raise NotImplementedError
