"""ADL211: ALTER TYPE ... ADD VALUE inside a transaction block."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import qualified_name
from agentddl.checks.pg.columns import string_constants

ADD_VALUE_IN_TRANSACTION_SINCE = 12
# From 17 a value added to a type created in the same transaction is usable at once.
NEW_TYPE_VALUES_USABLE_SINCE = 17

_FIX = (
    "Run ALTER TYPE ... ADD VALUE outside a transaction block (in Alembic, inside "
    "op.get_context().autocommit_block()), or commit right after it."
)


class EnumAddValueInTransaction(Rule):
    """
    ## What it does
    Flags an enum `ADD VALUE` that fails in a transaction block: the statement
    itself before PostgreSQL 12, a use of the new value in the same transaction
    from 12 on.

    Before PostgreSQL 12, flags `ALTER TYPE ... ADD VALUE` inside a transaction block
    (an explicit `BEGIN`, Alembic's per-revision transaction, or a `DO` block). From
    12 on, where that is allowed, flags a later statement of the same transaction
    that uses the new value as a literal (`UPDATE ... SET status = 'archived'`, a
    `DEFAULT`, an index predicate). An enum type created in the same transaction is
    exempt where PostgreSQL exempts it: its `ADD VALUE` before 12, and the use of the
    new value from 17 on (12 to 16 refuse that too).

    ## Why is this bad?
    Before 12, `ADD VALUE` refuses to run in a transaction block: the migration
    fails. Since 12 it runs, but the new value cannot be used until the transaction
    commits: the statement using it fails with `unsafe use of new value`, and the
    whole migration rolls back.

    ## Example
    ```sql
    BEGIN;
    ALTER TYPE agent.run_status ADD VALUE 'archived';
    UPDATE agent.runs SET status = 'archived' WHERE finished_at < now() - interval '1 year';
    COMMIT;
    ```

    ## Use instead
    ```sql
    ALTER TYPE agent.run_status ADD VALUE IF NOT EXISTS 'archived';  -- autocommits
    BEGIN;
    UPDATE agent.runs SET status = 'archived' WHERE finished_at < now() - interval '1 year';
    COMMIT;
    ```

    ## In an Alembic migration
    ```python
    with op.get_context().autocommit_block():
        op.execute("ALTER TYPE agent.run_status ADD VALUE IF NOT EXISTS 'archived'")
    ```
    Use the value in a later revision, or after the autocommit block.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertype.html#SQL-ALTERTYPE-NOTES
    - https://www.postgresql.org/docs/release/12.0/
    """

    code = "ADL211"
    name = "enum-add-value-in-transaction"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if context.pg_version < ADD_VALUE_IN_TRANSACTION_SINCE:
            yield from _add_value_in_block(statement, context)
        else:
            yield from _new_value_used(statement, context)


def _added_value(node: object, context: Context) -> tuple[RelationName, str] | None:
    """(enum type, value) of an `ALTER TYPE ... ADD VALUE` (not RENAME VALUE)."""
    if isinstance(node, ast.AlterEnumStmt) and node.newVal and not node.oldVal:
        return qualified_name(node.typeName or (), context), str(node.newVal)
    return None


def _enum_additions(statement: Statement, context: Context) -> tuple[Statement, ...]:
    """`ALTER TYPE ... ADD VALUE` statements earlier in `statement`'s transaction."""
    return context.same_transaction(statement, ast.AlterEnumStmt)


def _created_in_transaction(enum: RelationName, statement: Statement, context: Context) -> bool:
    return any(
        isinstance(s.node, ast.CreateEnumStmt) and qualified_name(s.node.typeName or (), context) == enum
        for s in context.same_transaction(statement, ast.CreateEnumStmt)
    )


def _add_value_in_block(statement: Statement, context: Context) -> Iterator[Violation]:
    added = _added_value(statement.node, context)
    if added is None or not (statement.in_transaction_block or statement.in_do_block):
        return
    enum, value = added
    if _created_in_transaction(enum, statement, context):
        return
    yield Violation(
        message=(
            f"Adding value '{value}' to enum {enum} inside a transaction block fails on "
            f"PostgreSQL {context.pg_version} (allowed from 12)."
        ),
        fix=_FIX,
    )


def _new_value_used(statement: Statement, context: Context) -> Iterator[Violation]:
    if not statement.in_transaction_block or isinstance(statement.node, ast.AlterEnumStmt):
        return
    literals = set(string_constants(statement.node))
    if not literals:
        return
    pending: dict[str, RelationName] = {}
    for earlier in _enum_additions(statement, context):
        added = _added_value(earlier.node, context)
        if added is None:
            continue
        new_type = _created_in_transaction(added[0], earlier, context)
        if not (new_type and context.pg_version >= NEW_TYPE_VALUES_USABLE_SINCE):
            pending[added[1]] = added[0]
    if not pending:
        return
    for value in sorted(literals & set(pending)):
        yield Violation(
            message=(
                f"Using '{value}', added to enum {pending[value]} earlier in this transaction, "
                "fails until that transaction commits (unsafe use of new enum value)."
            ),
            fix=_FIX,
        )
