"""ADL109: a drop that takes ACCESS EXCLUSIVE on another table through a foreign key."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import AlterTableType, DropBehavior, ObjectType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import qualified_name, relation_name
from agentddl.checks.pg.foreign_keys import ForeignKey, known_foreign_keys
from agentddl.checks.pg.names import RelationName

Linked = tuple[RelationName, ForeignKey, str]  # the other table, the key, what is dropped


class DropLocksLinkedTable(Rule):
    """
    ## What it does
    Flags a `DROP TABLE`, `ALTER TABLE ... DROP COLUMN` or `ALTER TABLE ... DROP
    CONSTRAINT` that removes a foreign key, and so takes an ACCESS EXCLUSIVE lock on the
    *other* table of that key: the referenced table when the dropped table, column or
    constraint references it, the referencing table when `CASCADE` drops a key that
    points at the dropped table or column. The foreign keys are those `--schema-from`
    declares and those created earlier in the migration (less those dropped since);
    without either, nothing is known and nothing is flagged. Tables created in the
    migration are new and not flagged. A **warning** with no `lock_timeout` in force,
    **info** under one (the wait is bounded, but the other table is still locked for
    it and, in a transaction block, until `COMMIT`).

    ## Why is this bad?
    A foreign key is enforced by triggers on both of its tables, and dropping it drops
    those triggers: PostgreSQL locks both tables in ACCESS EXCLUSIVE mode, on every
    supported version (`DROP TABLE child` in a transaction shows
    `AccessExclusiveLock` on `parent` in `pg_locks`). Dropping an unused child table
    therefore waits for every transaction that touched the hot parent and, while it
    waits, queues every new query on the parent behind it: the parent is down for as
    long as the longest transaction on it, and in a transaction block it stays locked
    until the migration commits.

    ## Example
    ```sql
    -- agent.run_notes (run_id) REFERENCES agent.runs (id)
    DROP TABLE agent.run_notes;
    ```

    ## Use instead
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE agent.run_notes DROP CONSTRAINT run_notes_run_id_fkey;  -- alone, retried
    DROP TABLE agent.run_notes;  -- no longer touches agent.runs
    ```
    Drop the foreign key first, alone, in its own short transaction under a
    `lock_timeout`, retried until it gets the lock; the later drop locks only its own
    table.

    ## In an Alembic migration
    `op.drop_constraint("run_notes_run_id_fkey", "run_notes", type_="foreignkey")` in a
    revision of its own, with `op.execute("SET LOCAL lock_timeout = '2s'")` first; drop
    the table in the next revision.

    ## References
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    - https://www.postgresql.org/docs/current/sql-droptable.html
    """

    code = "ADL109"
    name = "drop-locks-linked-table"
    severity = "warning"
    node_types = (ast.DropStmt, ast.AlterTableStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if statement.in_do_block:
            return
        linked = _linked(statement.node, context)
        if not linked:
            return
        other, key, dropped = linked[0]
        names = ", ".join(dict.fromkeys(str(relation) for relation, _, _ in linked))
        held = " until the transaction commits" if statement.in_transaction_block else ""
        bounded = context.lock_timeout_ms > 0
        wait = (
            "for up to lock_timeout" if bounded else "until every transaction on it ends, and so do new ones"
        )
        first = f"ALTER TABLE {key.table} DROP CONSTRAINT {key.name or _default_name(key)}"
        alone = "alone in its own transaction, with a short lock_timeout and retries"
        yield Violation(
            message=f"Dropping {dropped} also takes ACCESS EXCLUSIVE on {names}{held}, through"
            f" the foreign key {_show(key)}: every query on {other} waits {wait}.",
            fix=f"Run it {alone}, when {other} is quiet."
            if dropped.startswith("the constraint")
            else f"Drop the foreign key first, {alone} ({first}); then drop {dropped}.",
            severity="info" if bounded else None,
        )


def _linked(node: object, context: Context) -> list[Linked]:
    """The other tables a drop locks through foreign keys, each with its key."""
    if isinstance(node, ast.DropStmt) and node.removeType == ObjectType.OBJECT_TABLE:
        cascade = node.behavior == DropBehavior.DROP_CASCADE
        tables = [qualified_name(names, context) for names in node.objects or ()]
        existing = [table for table in tables if not context.is_new(table)]
        keys = known_foreign_keys(context) if existing else []  # replayed once per statement
        found = [link for table in existing for link in _of_table(table, cascade, keys)]
        return [link for link in found if link[0] not in tables and not context.is_new(link[0])]
    if isinstance(node, ast.AlterTableStmt) and node.objtype == ObjectType.OBJECT_TABLE and node.relation:
        table = relation_name(node.relation, context)
        if context.is_new(table):
            return []
        drops = [cmd for cmd in node.cmds or () if _drops(cmd)]
        keys = known_foreign_keys(context) if drops else []  # replayed once per statement
        found = [link for cmd in drops for link in _of_command(table, cmd, keys, context)]
        return [link for link in found if link[0] != table and not context.is_new(link[0])]
    return []


def _of_table(table: RelationName, cascade: bool, keys: list[ForeignKey]) -> Iterator[Linked]:
    for key in keys:
        if key.table == table:
            yield key.references, key, f"the table {table}"
        elif cascade and key.references == table:
            yield key.table, key, f"the table {table} with CASCADE"


def _drops(cmd: object) -> bool:
    """A named DROP CONSTRAINT or DROP COLUMN: the commands that may drop a foreign key."""
    drops = (AlterTableType.AT_DropConstraint, AlterTableType.AT_DropColumn)
    return isinstance(cmd, ast.AlterTableCmd) and bool(cmd.name) and cmd.subtype in drops


def _of_command(
    table: RelationName, cmd: ast.AlterTableCmd, keys: list[ForeignKey], context: Context
) -> Iterator[Linked]:
    cascade = cmd.behavior == DropBehavior.DROP_CASCADE
    if cmd.subtype == AlterTableType.AT_DropConstraint:
        for key in keys:
            if key.table == table and key.name == cmd.name:
                yield key.references, key, f"the constraint {cmd.name}"
    elif cmd.subtype == AlterTableType.AT_DropColumn:
        primary = context.schema.primary_key(table) if context.schema is not None else ()
        for key in keys:
            if key.table == table and cmd.name in key.columns:
                yield key.references, key, f"the column {table}.{cmd.name}"
            elif cascade and key.references == table and cmd.name in (key.ref_columns or primary):
                yield key.table, key, f"the column {table}.{cmd.name} with CASCADE"


def _default_name(key: ForeignKey) -> str:
    """The name PostgreSQL gives an unnamed foreign key: table_columns_fkey."""
    name = "_".join((key.table.name, *key.columns, "fkey"))
    return name if len(name.encode()) <= 63 and key.columns else "..."


def _show(key: ForeignKey) -> str:
    name = f"{key.name} " if key.name else ""
    return f"{name}({key.table} -> {key.references})"
