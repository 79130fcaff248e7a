"""ADL202: VALIDATE CONSTRAINT in the transaction that added the constraint NOT VALID."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import AlterTableType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.columns import added_constraint, commands_of, existing_altered_table
from agentddl.checks.pg.earlier import earlier_commands


class ValidateInSameTransaction(Rule):
    """
    ## What it does
    Flags `VALIDATE CONSTRAINT` in the same transaction as the `NOT VALID` add of
    that constraint.

    Flags `ALTER TABLE ... VALIDATE CONSTRAINT c` run in the same transaction as the
    `ADD CONSTRAINT c ... NOT VALID` that created it, on a table that existed before
    this migration.

    ## Why is this bad?
    `NOT VALID` exists so that the slow check of existing rows happens later, under
    the weak SHARE UPDATE EXCLUSIVE lock `VALIDATE` takes. But locks are held until
    the transaction ends: in the same transaction, the add's lock (ACCESS EXCLUSIVE
    for a CHECK, SHARE ROW EXCLUSIVE on both tables for a foreign key) is still held
    while `VALIDATE` scans the table, so writes stay blocked for the whole scan and
    nothing was gained over a plain `ADD CONSTRAINT`.

    ## Example
    ```sql
    BEGIN;
    ALTER TABLE agent.events ADD CONSTRAINT events_run_fk
        FOREIGN KEY (run_id) REFERENCES agent.runs (id) NOT VALID;
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_fk;
    COMMIT;
    ```

    ## Use instead
    ```sql
    BEGIN;
    ALTER TABLE agent.events ADD CONSTRAINT events_run_fk
        FOREIGN KEY (run_id) REFERENCES agent.runs (id) NOT VALID;
    COMMIT;
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_fk;
    ```

    ## In an Alembic migration
    Alembic runs a revision in one transaction. Validate in the next revision, or
    commit first with an autocommit block:
    ```python
    op.create_foreign_key("events_run_fk", "events", "runs", ["run_id"], ["id"],
                          source_schema="agent", referent_schema="agent",
                          postgresql_not_valid=True)
    with op.get_context().autocommit_block():
        op.execute("ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_fk")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-VALIDATE-CONSTRAINT
    - https://www.postgresql.org/docs/current/explicit-locking.html
    """

    code = "ADL202"
    name = "validate-in-same-transaction"
    severity = "error"
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        table = existing_altered_table(statement, context)
        if table is None:
            return
        validate = AlterTableType.AT_ValidateConstraint
        validated = {str(cmd.name) for cmd in commands_of(statement.node, validate)}
        if not validated:
            return
        added = [added_constraint(cmd) for _, cmd in earlier_commands(table, context, within=statement)]
        added_not_valid = {c.conname for c in added if c and c.conname and c.skip_validation}
        for name in sorted(validated & added_not_valid):
            yield Violation(
                message=(
                    f"Validating {name} in the transaction that added it scans {table} "
                    "while the add's lock still blocks writes to it."
                ),
                fix="COMMIT after the NOT VALID add, then VALIDATE in a new transaction.",
            )
