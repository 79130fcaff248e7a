"""The foreign keys known before a statement: the schema's (`--schema-from`) and those
this migration created earlier, less those it dropped since.

A foreign key ties two tables' locks together: PostgreSQL enforces it with triggers on
both, so adding one takes SHARE ROW EXCLUSIVE on the referenced table and dropping one
(`DROP CONSTRAINT`, `DROP COLUMN` of its column, `DROP TABLE` of either side with
CASCADE) takes ACCESS EXCLUSIVE on both (tests/integration/lint/test_fk_drop_locks_on_server.py
reads pg_locks to show it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ConstrType, ObjectType

from agentddl.checks.pg.ast_helpers import name_list, qualified_name, relation_name
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.schema import ConstraintFacts
from agentddl.checks.pg.statements import Context

MATCH_FULL = "f"  # a constraint node's fk_matchtype for MATCH FULL


@dataclass(frozen=True)
class ForeignKey:
    """`table (columns) REFERENCES references (ref_columns)`; ref_columns () is the
    referenced table's primary key."""

    name: str | None
    table: RelationName
    columns: tuple[str, ...]
    references: RelationName
    ref_columns: tuple[str, ...] = ()

    def facts(self, validated: bool = True) -> ConstraintFacts:
        """As `SchemaFacts` keeps it on the referencing table."""
        return ConstraintFacts(
            self.name, "foreign", self.columns, validated, self.references, self.ref_columns
        )


def schema_key(table: RelationName, facts: ConstraintFacts) -> ForeignKey | None:
    """The foreign key a constraint `SchemaFacts` keeps on `table` is (None: not one)."""
    if facts.kind != "foreign" or facts.references is None:
        return None
    return ForeignKey(facts.name, table, facts.columns, facts.references, facts.ref_columns)


def foreign_key(
    constraint: ast.Constraint, table: RelationName, context: Context, column: str | None = None
) -> ForeignKey | None:
    """The foreign key a constraint node of `table` defines (`column`: an inline
    `REFERENCES` on that column); None for any other constraint."""
    if constraint.contype != ConstrType.CONSTR_FOREIGN or constraint.pktable is None:
        return None
    columns = tuple(name_list(constraint.fk_attrs)) or ((column,) if column else ())
    if not columns and constraint.keys:
        columns = tuple(name_list(constraint.keys))  # a column constraint given its column
    referenced = relation_name(constraint.pktable, context)
    return ForeignKey(constraint.conname, table, columns, referenced, tuple(name_list(constraint.pk_attrs)))


def known_foreign_keys(context: Context) -> list[ForeignKey]:
    """Every foreign key in force before the statement `context` precedes: the schema's,
    then this migration's, in order, without those dropped in between."""
    tables = context.schema.tables.values() if context.schema is not None else ()
    keys = [key for t in tables for c in t.constraints if (key := schema_key(t.name, c)) is not None]
    for statement in context.earlier_of(ast.CreateStmt, ast.AlterTableStmt, ast.DropStmt):
        if statement.in_do_block:
            continue
        keys = _after(statement.node, keys, context)
    return keys


def _after(node: object, keys: list[ForeignKey], context: Context) -> list[ForeignKey]:
    """`keys` as the statement leaves them."""
    if isinstance(node, ast.CreateStmt) and node.relation is not None:
        table = relation_name(node.relation, context)
        return keys + list(_defined(node.tableElts or (), table, context))
    if isinstance(node, ast.DropStmt) and node.removeType == ObjectType.OBJECT_TABLE:
        dropped = {qualified_name(names, context) for names in node.objects or ()}
        return [k for k in keys if k.table not in dropped and k.references not in dropped]
    if isinstance(node, ast.AlterTableStmt) and node.relation is not None:
        table = relation_name(node.relation, context)
        for cmd in node.cmds or ():
            if not isinstance(cmd, ast.AlterTableCmd):
                continue
            if cmd.subtype in (AlterTableType.AT_AddConstraint, AlterTableType.AT_AddColumn):
                keys = keys + list(_defined((cmd.def_,), table, context))
            elif cmd.subtype == AlterTableType.AT_DropConstraint:
                keys = [k for k in keys if not (k.table == table and k.name == cmd.name)]
            elif cmd.subtype == AlterTableType.AT_DropColumn:
                keys = [k for k in keys if not (k.table == table and cmd.name in k.columns)]
    return keys


def _defined(elements: Sequence[Any], table: RelationName, context: Context) -> Iterator[ForeignKey]:
    """The foreign keys among table elements: table constraints and columns' REFERENCES."""
    for element in elements:
        if isinstance(element, ast.Constraint):
            found = foreign_key(element, table, context)
            if found is not None:
                yield found
        elif isinstance(element, ast.ColumnDef) and element.colname:
            for constraint in element.constraints or ():
                if isinstance(constraint, ast.Constraint):
                    found = foreign_key(constraint, table, context, column=element.colname)
                    if found is not None:
                        yield found
