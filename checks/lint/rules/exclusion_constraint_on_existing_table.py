"""ADL204: ADD EXCLUDE on an existing table."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.columns import added_constraints, existing_altered_table

# PostgreSQL 18's temporal keys (`WITHOUT OVERLAPS`) are exclusion constraints too.
_KINDS = (ConstrType.CONSTR_EXCLUSION, ConstrType.CONSTR_UNIQUE, ConstrType.CONSTR_PRIMARY)


class ExclusionConstraintOnExistingTable(Rule):
    """
    ## What it does
    Flags an exclusion constraint added to a table that existed before this
    migration.

    Flags `ALTER TABLE ... ADD CONSTRAINT ... EXCLUDE` (and PostgreSQL 18's temporal
    `UNIQUE` / `PRIMARY KEY (..., period WITHOUT OVERLAPS)`, which are exclusion
    constraints underneath) on a table that existed before this migration. Exclusion
    constraints in `CREATE TABLE`, or added to a table created earlier in the same
    migration, are not flagged.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    The constraint's index is built, and every existing row checked against it, while
    `ALTER TABLE` holds an ACCESS EXCLUSIVE lock: no reads and no writes until it
    finishes. Unlike UNIQUE, there is no concurrent path: an exclusion constraint
    cannot adopt an index with `USING INDEX` (which takes only B-tree indexes), and
    it cannot be added `NOT VALID`.

    ## Example
    ```sql
    ALTER TABLE agent.attempts ADD CONSTRAINT attempts_no_overlap
        EXCLUDE USING gist (run_id WITH =, lease_period WITH &&);
    ```

    ## Use instead
    Add the constraint when the table is created, or in a maintenance window. To
    enforce the rule online on a populated table, use a trigger (with a supporting
    index built `CONCURRENTLY`), or a partial unique index where the rule is
    equality-only:
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY attempts_one_active
        ON agent.attempts (run_id) WHERE finished_at IS NULL;
    ```

    ## In an Alembic migration
    `op.create_exclude_constraint(...)` emits the same `ALTER TABLE ... ADD EXCLUDE`;
    keep it in the revision that creates the table (`op.create_table`).

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-ADD-TABLE-CONSTRAINT
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-EXCLUSION
    """

    code = "ADL204"
    name = "exclusion-constraint-on-existing-table"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node, table = statement.node, existing_altered_table(statement, context)
        if table is None:
            return
        for constraint in added_constraints(node, *_KINDS):
            is_exclusion = constraint.contype == ConstrType.CONSTR_EXCLUSION
            if not (is_exclusion or constraint.without_overlaps):
                continue
            label = f" {constraint.conname}" if constraint.conname else ""
            yield Violation(
                message=(
                    f"Adding exclusion constraint{label} builds its index on {table} under "
                    "an ACCESS EXCLUSIVE lock that blocks reads and writes until it finishes."
                ),
                fix=(
                    "Add it when the table is created or in a maintenance window; online, "
                    "enforce it with a trigger or a partial unique index built CONCURRENTLY."
                ),
            )
