"""ADL218: ALTER TYPE ... ADD VALUE without BEFORE or AFTER appends the value last."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import name_list
from agentddl.checks.pg.earlier import type_created_earlier

_SHOWN_COLUMNS = 3


class EnumValueWithoutPosition(Rule):
    """
    ## What it does
    Notes an `ALTER TYPE ... ADD VALUE` without `BEFORE` or `AFTER` on an enum that
    existed before this migration: the new value sorts after every existing one. An
    **info** note, **off by default**: whether the order matters depends on the queries
    that compare or sort the enum, which a migration does not show, and appending is
    what most migrations want. Switch it on (`[tool.agentddl.rules]
    enum-value-without-position = "info"`, or `"warning"` where your code compares
    states by order). With `--schema-from` it names the columns of that type, and says
    nothing when the schema has none (no stored value is compared or sorted). An enum
    created in the same migration is not noted.

    ## Why is this bad?
    An enum's values compare and sort in the order they were declared, not
    alphabetically. Code that filters `status < 'done'`, sorts `ORDER BY status`, or
    takes `max(status)` as "the furthest state" treats a value appended last as coming
    after every existing one: a new `'paused'` appended after `'done'` counts as
    finished, and such a bug shows only in results, never as an error.

    ## Example
    ```sql
    -- agent.run_status is ('queued', 'running', 'done'); code tests status < 'done'
    ALTER TYPE agent.run_status ADD VALUE 'paused';
    ```

    ## Use instead
    ```sql
    ALTER TYPE agent.run_status ADD VALUE 'paused' BEFORE 'done';
    ```
    Or, when the order is meaningless, keep appending and ignore the note with the
    reason: `-- agentddl: ignore[enum-value-without-position] order is never compared`.

    ## In an Alembic migration
    `op.execute("ALTER TYPE agent.run_status ADD VALUE 'paused' BEFORE 'done'")` (in an
    `autocommit_block()` before PostgreSQL 12).

    ## References
    - https://www.postgresql.org/docs/current/datatype-enum.html#DATATYPE-ENUM-ORDERING
    - https://www.postgresql.org/docs/current/sql-altertype.html
    """

    code = "ADL218"
    name = "enum-value-without-position"
    severity = "info"
    enabled_by_default = False
    node_types = (ast.AlterEnumStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, ast.AlterEnumStmt) or not node.newVal or node.oldVal or node.newValNeighbor:
            return
        if type_created_earlier(node.typeName, context):
            return  # a new type: nothing stored or written against its order yet
        names = name_list(node.typeName)
        columns = _columns_of_type(names, context)
        if columns == []:
            return  # the schema knows every column, and none is of this type
        enum, value = ".".join(names), str(node.newVal)
        where = ""
        if columns:
            shown = ", ".join(columns[:_SHOWN_COLUMNS]) + (", ..." if len(columns) > _SHOWN_COLUMNS else "")
            where = f" (stored in {shown})"
        yield Violation(
            message=f"'{value}' is appended after every existing value of {enum}{where}: comparisons,"
            " ORDER BY, min() and max() on it place it last.",
            fix=f"Say where it belongs with BEFORE or AFTER (ADD VALUE '{value}' BEFORE '...'), or"
            " ignore this note with the reason when the order is never compared.",
        )


def _columns_of_type(names: list[str], context: Context) -> list[str] | None:
    """`table.column` of every column of this enum the schema declares; None when no
    schema is known."""
    if context.schema is None or not names:
        return None
    schema = names[-2] if len(names) >= 2 else None
    found = []
    for table in context.schema.tables.values():
        for column in table.columns.values():
            kind = column.type
            if (
                kind is not None
                and kind.name == names[-1]
                and (schema is None or kind.schema in (None, schema))
            ):
                found.append(f"{table.name}.{column.name}")
    return sorted(found)
