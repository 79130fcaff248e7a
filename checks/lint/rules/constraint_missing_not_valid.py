"""ADL201: ADD FOREIGN KEY / CHECK on an existing table without NOT VALID."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import name_list, relation_name
from agentddl.checks.pg.columns import (
    added_columns,
    added_constraints,
    column_constraints,
    default_expression,
    existing_altered_table,
    is_serial,
    is_validating,
)
from agentddl.checks.pg.earlier import type_created_earlier

_KINDS = (ConstrType.CONSTR_FOREIGN, ConstrType.CONSTR_CHECK)


class ConstraintMissingNotValid(Rule):
    """
    ## What it does
    Flags a foreign key or CHECK constraint added without `NOT VALID` to a table
    that existed before this migration.

    Flags `ALTER TABLE ... ADD FOREIGN KEY` and `ADD CHECK` (also as part of
    `ADD COLUMN ... CHECK`, and `ADD COLUMN ... REFERENCES` when the new column gets a
    default) on a table that existed before this migration, when the constraint is
    not added `NOT VALID`. Tables created earlier in the same migration are new and
    empty and are not flagged; nor is a foreign key on a new column without a
    default, which PostgreSQL does not need to check (every value is NULL).
    `ALTER DOMAIN ... ADD CONSTRAINT ... CHECK` without `NOT VALID` is flagged too,
    unless the domain was created in this migration: it checks every column of that
    type in every table, holding a SHARE lock (no writes) on each.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    Adding a validated constraint checks every existing row while holding the lock
    the add takes: for a CHECK an ACCESS EXCLUSIVE lock (no reads, no writes), for a
    foreign key a SHARE ROW EXCLUSIVE lock on both the table and the referenced table
    (no writes to either). On a large table that is minutes of downtime. Added
    `NOT VALID`, the constraint is enforced for new rows at once and the add is
    instant; `VALIDATE CONSTRAINT`, run later in its own transaction, checks the old
    rows under a SHARE UPDATE EXCLUSIVE lock that lets reads and writes continue.

    ## Example
    ```sql
    ALTER TABLE agent.events
        ADD CONSTRAINT events_run_fk FOREIGN KEY (run_id) REFERENCES agent.runs (id);
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.events
        ADD CONSTRAINT events_run_fk FOREIGN KEY (run_id) REFERENCES agent.runs (id)
        NOT VALID;
    COMMIT;  -- or a separate migration
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_fk;
    ```
    Before PostgreSQL 18 a partitioned table refuses `NOT VALID` foreign keys: add
    the key `NOT VALID` to each partition and validate it there, then add it to the
    parent, which adopts the partitions' valid keys without checking rows again.

    ## In an Alembic migration
    ```python
    op.create_foreign_key("events_run_fk", "events", "runs", ["run_id"], ["id"],
                          source_schema="agent", referent_schema="agent",
                          postgresql_not_valid=True)
    # in the next revision (or after COMMIT in an autocommit_block()):
    op.execute("ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_fk")
    ```
    For a CHECK: `op.create_check_constraint(..., postgresql_not_valid=True)`.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-ADD-TABLE-CONSTRAINT
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    """

    code = "ADL201"
    name = "constraint-missing-not-valid"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.AlterTableStmt, ast.AlterDomainStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if isinstance(statement.node, ast.AlterDomainStmt):
            yield from _domain_check(statement.node, context)
            return
        node, table = statement.node, existing_altered_table(statement, context)
        if table is None:
            return
        for constraint in added_constraints(node, *_KINDS):
            if is_validating(constraint):
                yield _violation(constraint, table, context, _FIX)
        for column in added_columns(node):
            for constraint in column_constraints(column, *_KINDS):
                if is_validating(constraint) and _checks_rows(constraint, column):
                    yield _violation(constraint, table, context, _INLINE_FIX)


def _checks_rows(constraint: ast.Constraint, column: ast.ColumnDef) -> bool:
    """PostgreSQL skips validating a foreign key on a new column that starts out all
    NULL (no default, not generated); a CHECK on a new column is always checked."""
    if constraint.contype != ConstrType.CONSTR_FOREIGN:
        return True
    filled = (ConstrType.CONSTR_IDENTITY, ConstrType.CONSTR_GENERATED)
    has_values = default_expression(column) is not None or column_constraints(column, *filled)
    return bool(has_values) or is_serial(column)


def _domain_check(node: ast.AlterDomainStmt, context: Context) -> Iterator[Violation]:
    """ALTER DOMAIN ADD CONSTRAINT CHECK checks every stored value of the domain unless
    NOT VALID (a domain made in this migration has no stored values yet)."""
    constraint = node.def_
    if node.subtype != "C" or not isinstance(constraint, ast.Constraint):
        return
    if constraint.contype != ConstrType.CONSTR_CHECK or constraint.skip_validation:
        return
    if type_created_earlier(node.typeName, context):
        return
    label = f" {constraint.conname}" if constraint.conname else ""
    yield Violation(
        message=(
            f"Adding CHECK constraint{label} to domain {'.'.join(name_list(node.typeName))} scans every"
            " column of that type, holding a SHARE lock that blocks writes to each table using it."
        ),
        fix="Add it with NOT VALID, then ALTER DOMAIN ... VALIDATE CONSTRAINT in a later transaction.",
    )


_FIX = "Add it with NOT VALID, then VALIDATE CONSTRAINT in a later transaction."
NOT_VALID_FK_ON_PARTITIONED_SINCE = 18
_PARTITIONED_HINT = " (A partitioned table before 18: do so on each partition, then on the parent.)"
_INLINE_FIX = (
    "Add the column without the constraint, then ADD CONSTRAINT ... NOT VALID, then "
    "VALIDATE CONSTRAINT in a later transaction."
)


def _violation(constraint: ast.Constraint, table: RelationName, context: Context, action: str) -> Violation:
    label = f" {constraint.conname}" if constraint.conname else ""
    if constraint.contype == ConstrType.CONSTR_FOREIGN:
        pktable = constraint.pktable
        referenced = relation_name(pktable, context) if pktable is not None else table
        others = "" if referenced == table else f" and {referenced}"
        if context.pg_version < NOT_VALID_FK_ON_PARTITIONED_SINCE:
            action += _PARTITIONED_HINT
        return Violation(
            message=(
                f"Adding foreign key{label} scans {table} while holding a lock that "
                f"blocks writes to {table}{others}."
            ),
            fix=action,
        )
    return Violation(
        message=(
            f"Adding CHECK constraint{label} scans {table} while holding an ACCESS "
            f"EXCLUSIVE lock that blocks reads and writes."
        ),
        fix=action,
    )
