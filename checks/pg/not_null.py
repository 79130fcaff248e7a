"""Which columns a statement makes NOT NULL, and whether the rows are already proven
not null then: the facts set-not-null-requires-check (the scan) and
not-null-over-nulls (the rows that make it fail) both judge.

- `column_made_not_null`: `SET NOT NULL`, or a validating `ADD CONSTRAINT ... NOT NULL
  col` (PostgreSQL 18);
- `nullable_key_columns`: the columns an `ADD PRIMARY KEY` sets NOT NULL that are known
  nullable (`index_columns` of a `USING INDEX` key);
- `already_not_null`: NOT NULL before the command (schema, hints, this migration);
- `proven_not_null`: a valid constraint proving the column not null exists (PostgreSQL
  12+ then skips the scan, and the rows cannot hold a NULL);
- `unproven_not_null`: all of it for one `ALTER TABLE`: each column it makes NOT NULL
  whose rows PostgreSQL must then check (not NOT NULL already, not proven).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from pglast import ast
from pglast.enums import AlterTableType, ConstrType

from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.columns import added_constraint, implies_not_null, is_validating, table_commands
from agentddl.checks.pg.earlier import earlier_commands
from agentddl.checks.pg.known_columns import known_column
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context, Statement

CHECK_SKIPS_SCAN_SINCE = 12  # SET NOT NULL uses a validated CHECK (col IS NOT NULL)
NOT_NULL_NOT_VALID_SINCE = 18  # ADD CONSTRAINT ... NOT NULL col NOT VALID


@dataclass(frozen=True)
class MadeNotNull:
    """A column an `ALTER TABLE` makes NOT NULL, checking every row of its table."""

    column: str
    by_key: bool  # set NOT NULL by an ADD PRIMARY KEY (else SET NOT NULL / ADD CONSTRAINT NOT NULL)


def unproven_not_null(statement: Statement, context: Context, table: RelationName) -> Iterator[MadeNotNull]:
    """The columns of `table` this `ALTER TABLE` makes NOT NULL that are neither NOT NULL
    already nor proven not null by a valid constraint, in command order: PostgreSQL
    checks their rows (the scan set-not-null-requires-check reports, the NULLs that
    make not-null-over-nulls' statement fail)."""
    commands = table_commands(statement.node)
    for position, command in enumerate(commands):
        earlier = commands[:position]
        column = column_made_not_null(command, context)
        made = [
            MadeNotNull(key, by_key=True)
            for key in nullable_key_columns(statement, context, table, command, earlier)
        ]
        if column is not None and not already_not_null(statement, context, table, column, earlier):
            made.insert(0, MadeNotNull(column, by_key=False))
        yield from (m for m in made if not proven_not_null(table, m.column, context, earlier))


def already_not_null(
    statement: Statement,
    context: Context,
    table: RelationName,
    column: str,
    same: Sequence[ast.AlterTableCmd],
) -> bool:
    """The column is NOT NULL already (the schema, a hint, this migration): no scan."""
    for command in reversed(same):
        if command.name == column and command.subtype == AlterTableType.AT_DropNotNull:
            return False
    return known_column(statement, context, table, column).not_null is True


def nullable_key_columns(
    statement: Statement,
    context: Context,
    table: RelationName,
    command: ast.AlterTableCmd,
    same: Sequence[ast.AlterTableCmd],
) -> list[str]:
    """The columns of an `ADD PRIMARY KEY` known to be nullable (PostgreSQL sets them NOT
    NULL, scanning the table); unknown nullability is not reported."""
    constraint = added_constraint(command)
    if constraint is None or constraint.contype != ConstrType.CONSTR_PRIMARY:
        return []
    columns = [str(key.sval) for key in constraint.keys or ()]
    if constraint.indexname:
        columns = index_columns(constraint.indexname, table, context)
    made_not_null = {str(c.name) for c in same if c.subtype == AlterTableType.AT_SetNotNull}
    return [
        column
        for column in columns
        if column not in made_not_null and known_column(statement, context, table, column).not_null is False
    ]


def index_columns(name: str, table: RelationName, context: Context) -> list[str]:
    """The key columns of index `name` on `table`: made earlier in this migration, else
    as the schema shows it."""
    for earlier in reversed(context.earlier_of(ast.IndexStmt)):
        node = earlier.node
        on_table = node.relation is not None and relation_name(node.relation, context) == table
        if node.idxname == name and on_table:
            return [str(e.name) for e in node.indexParams or () if isinstance(e, ast.IndexElem) and e.name]
    found = context.schema.index(RelationName(table.schema, name)) if context.schema is not None else None
    return list(found.columns) if found is not None else []


def column_made_not_null(command: ast.AlterTableCmd, context: Context) -> str | None:
    if command.subtype == AlterTableType.AT_SetNotNull:
        return str(command.name)
    constraint = command.def_
    if (
        command.subtype == AlterTableType.AT_AddConstraint
        and context.pg_version >= NOT_NULL_NOT_VALID_SINCE  # older: a syntax error
        and isinstance(constraint, ast.Constraint)
        and constraint.contype == ConstrType.CONSTR_NOTNULL
        and is_validating(constraint)
        and constraint.keys
    ):
        return str(constraint.keys[0].sval)
    return None


def proven_not_null(
    table: RelationName, column: str, context: Context, same: Iterable[ast.AlterTableCmd]
) -> bool:
    """A valid constraint proving `column` not null exists when this command runs."""
    if context.pg_version < CHECK_SKIPS_SCAN_SINCE:
        return False
    proof = _Proof(column)
    for _, command in earlier_commands(table, context):
        proof.apply(command)
    for command in same:
        proof.apply(command)
    return bool(proof.valid)


@dataclass
class _Proof:
    """Replays a table's constraint changes, tracking which ones prove `column` not null."""

    column: str
    valid: set[str | None] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)  # added NOT VALID, not validated yet
    added_here: set[str | None] = field(default_factory=set)

    def apply(self, command: ast.AlterTableCmd) -> None:
        constraint = added_constraint(command)
        if constraint is not None:
            self._added(constraint)
        elif command.subtype == AlterTableType.AT_ValidateConstraint:
            name = str(command.name)
            unseen = name not in self.added_here and _named_for_null_check(name, self.column)
            if name in self.pending or unseen:
                self.valid.add(name)
        elif command.subtype == AlterTableType.AT_DropConstraint:
            self.valid.discard(command.name)
            self.pending.discard(str(command.name))

    def _added(self, constraint: ast.Constraint) -> None:
        self.added_here.add(constraint.conname)
        if not _proves(constraint, self.column):
            return
        if is_validating(constraint):
            self.valid.add(constraint.conname)
        elif constraint.conname:
            self.pending.add(constraint.conname)


def _named_for_null_check(name: str, column: str) -> bool:
    """A constraint added NOT VALID by an earlier migration and validated in this one:
    its expression is not visible, so trust a name like `events_run_id_not_null`."""
    folded = name.lower()
    return column.lower() in folded and ("null" in folded or folded.endswith("_nn"))


def _proves(constraint: ast.Constraint, column: str) -> bool:
    if constraint.contype == ConstrType.CONSTR_CHECK:  # NOT ENFORCED proves nothing
        return bool(constraint.is_enforced) and implies_not_null(constraint.raw_expr, column)
    keys = [key.sval for key in constraint.keys or ()]
    return constraint.contype == ConstrType.CONSTR_NOTNULL and keys == [column]
