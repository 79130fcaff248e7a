"""What `ALTER TABLE ... VALIDATE CONSTRAINT name` checks the rows against.

The safe way to add a CHECK, a foreign key or (PostgreSQL 18) a NOT NULL constraint is
`ADD CONSTRAINT ... NOT VALID`, then `VALIDATE CONSTRAINT` later: the validation scans
the rows and fails at the first one that violates the constraint. Its definition comes
from an earlier `ADD CONSTRAINT` of this migration (the latest one of that name, unless
dropped since), else from the schema read (`--schema-from`); a constraint the schema
shows validated already is validated again for nothing (no row can fail it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pglast import ast
from pglast.enums import AlterTableType
from pglast.stream import RawStream

from agentddl.checks.pg.ast_helpers import name_list
from agentddl.checks.pg.columns import added_constraint, commands_of
from agentddl.checks.pg.earlier import earlier_commands
from agentddl.checks.pg.foreign_keys import MATCH_FULL, ForeignKey, foreign_key, schema_key
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.schema import ConstraintFacts, ConstraintKind
from agentddl.checks.pg.schema_parse import CONSTRAINT_KINDS
from agentddl.checks.pg.statements import Context, Statement


@dataclass(frozen=True)
class Validated:
    """One `VALIDATE CONSTRAINT name`; `kind` None: its definition is not known."""

    name: str
    kind: ConstraintKind | None = None  # "check", "foreign", "not_null"
    expression: str | None = None  # a CHECK's, as SQL
    columns: tuple[str, ...] = ()  # a NOT NULL's column
    key: ForeignKey | None = None  # a foreign key's columns and referenced table
    match_full: bool = False  # a foreign key's MATCH FULL


def validated_constraints(statement: Statement, context: Context, table: RelationName) -> Iterator[Validated]:
    """Each constraint of `table` the `ALTER TABLE` validates, with its definition when
    it is known (and not validated already)."""
    for command in commands_of(statement.node, AlterTableType.AT_ValidateConstraint):
        name = str(command.name)
        earlier = _added_earlier(name, table, context)
        if earlier is not None:
            yield _from_ast(name, earlier, table, context)
            continue
        facts = _from_schema(name, table, context)
        if facts is None:
            yield Validated(name)
        elif not facts.validated:
            yield _from_facts(name, facts, table)


def _added_earlier(name: str, table: RelationName, context: Context) -> ast.Constraint | None:
    """The latest `ADD CONSTRAINT name` of `table` in this migration (None when none,
    or when a later `DROP CONSTRAINT name` removed it)."""
    found: ast.Constraint | None = None
    for _, command in earlier_commands(table, context):
        added = added_constraint(command)
        if added is not None and added.conname == name:
            found = added
        elif command.subtype == AlterTableType.AT_DropConstraint and command.name == name:
            found = None
    return found


def _from_ast(name: str, constraint: ast.Constraint, table: RelationName, context: Context) -> Validated:
    kind = CONSTRAINT_KINDS.get(constraint.contype) if constraint.contype is not None else None
    if kind == "check" and constraint.raw_expr is not None:
        return Validated(name, kind, expression=RawStream()(constraint.raw_expr))
    if kind == "foreign":
        key = foreign_key(constraint, table, context)
        return Validated(name, kind, key=key, match_full=constraint.fk_matchtype == MATCH_FULL)
    if kind == "not_null":
        return Validated(name, kind, columns=tuple(name_list(constraint.keys or ())))
    return Validated(name)


def _from_schema(name: str, table: RelationName, context: Context) -> ConstraintFacts | None:
    facts = context.schema.table(table) if context.schema is not None else None
    named = [c for c in facts.constraints if c.name == name] if facts is not None else []
    return named[0] if named else None


def _from_facts(name: str, facts: ConstraintFacts, table: RelationName) -> Validated:
    if facts.kind == "check" and facts.expression is not None:
        return Validated(name, "check", expression=facts.expression)
    key = schema_key(table, facts)
    if key is not None:
        return Validated(name, "foreign", key=key)
    if facts.kind == "not_null":
        return Validated(name, "not_null", columns=facts.columns)
    return Validated(name)
