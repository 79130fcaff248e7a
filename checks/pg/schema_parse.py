"""Schema SQL -> `SchemaFacts`: the one parser behind every `--schema-from` source.

Reads what `pg_dump --schema-only` (or `--no-data --statistics`) prints, a hand-written
schema.sql, or a profile's rendered schema, statement by statement in order, with the
walker's search_path: CREATE TABLE (columns, inline and table constraints, PARTITION BY,
PARTITION OF), ALTER TABLE (ADD/DROP COLUMN and CONSTRAINT, SET/DROP NOT NULL and
DEFAULT, TYPE, VALIDATE, ATTACH PARTITION), CREATE INDEX, DROP TABLE, and the sizes
`pg_restore_relation_stats(...)` calls carry (PostgreSQL 18's pg_dump writes them with
`--statistics`; a hand-written schema may add one per table to say how big it is):

    SELECT pg_catalog.pg_restore_relation_stats('schemaname', 'public', 'relname', 'orders',
        'relpages', '1200'::integer, 'reltuples', '100000'::real);

Everything else (functions, views, grants, comments, data) is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ConstrType, ObjectType
from pglast.stream import RawStream

from agentddl.checks.pg.ast_helpers import (
    const_value,
    function_name,
    iter_nodes,
    qualified_name,
    relation_name,
    resolve,
)
from agentddl.checks.pg.columns import column_type, is_serial
from agentddl.checks.pg.foreign_keys import foreign_key
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.schema import (
    BLOCK_SIZE,
    ColumnFacts,
    ConstraintFacts,
    ConstraintKind,
    IndexFacts,
    SchemaFacts,
    TableFacts,
)
from agentddl.checks.pg.statements import Context, Statement
from agentddl.checks.pg.walk import walk
from agentddl.generator.errors import AgentDDLError

PARSE_VERSION = 18  # the newest grammar: a dump of any supported server parses with it
STATS_FUNCTION = "pg_restore_relation_stats"
CONSTRAINT_KINDS: dict[ConstrType, ConstraintKind] = {
    ConstrType.CONSTR_PRIMARY: "primary",
    ConstrType.CONSTR_UNIQUE: "unique",
    ConstrType.CONSTR_CHECK: "check",
    ConstrType.CONSTR_FOREIGN: "foreign",
    ConstrType.CONSTR_EXCLUSION: "exclusion",
    ConstrType.CONSTR_NOTNULL: "not_null",
}
_DEFAULT = ConstrType.CONSTR_DEFAULT
# Column constraints that make a column NOT NULL by themselves.
_NOT_NULL_KINDS = (ConstrType.CONSTR_NOTNULL, ConstrType.CONSTR_PRIMARY, ConstrType.CONSTR_IDENTITY)


def parse_schema(text: str, source: str) -> SchemaFacts:
    """The facts `text` declares; `source` names it in messages. SQL PostgreSQL cannot
    parse is a one-line AgentDDLError at its line and column."""
    migration = walk(text, source, PARSE_VERSION, "psql")
    if migration.syntax_error is not None:
        line, column = migration.source.position(migration.syntax_error.offset)
        raise AgentDDLError(f"{source}:{line}:{column}: {migration.syntax_error.message}")
    builder = _Builder()
    for statement, context in migration.steps:
        if not statement.in_do_block:
            builder.add(statement, context)
    return builder.facts(source)


@dataclass
class _Table:
    name: RelationName
    columns: dict[str, ColumnFacts] = field(default_factory=dict)
    constraints: list[ConstraintFacts] = field(default_factory=list)
    partitioned: bool = False
    partition_of: RelationName | None = None
    rows: int | None = None
    bytes: int | None = None

    def frozen(self) -> TableFacts:
        return TableFacts(
            self.name,
            dict(self.columns),
            tuple(self.constraints),
            self.partitioned,
            self.partition_of,
            self.rows,
            self.bytes,
        )

    def set_column(self, name: str, **changes: Any) -> None:
        if name in self.columns:
            self.columns[name] = replace(self.columns[name], **changes)

    def add_constraint(
        self, constraint: ast.Constraint, context: Context, index_columns: tuple[str, ...] = ()
    ) -> None:
        kind = CONSTRAINT_KINDS.get(constraint.contype) if constraint.contype is not None else None
        if kind is None:
            return
        if kind == "foreign":
            found = foreign_key(constraint, self.name, context)
            if found is not None:
                self.constraints.append(found.facts(validated=not constraint.skip_validation))
            return
        keys = tuple(str(k.sval) for k in constraint.keys or () if isinstance(k, ast.String))
        keys = keys or index_columns
        if kind in ("primary", "not_null"):
            for column in keys:
                self.set_column(column, not_null=True)
        validated = not constraint.skip_validation
        expression = RawStream()(constraint.raw_expr) if constraint.raw_expr is not None else None
        facts = ConstraintFacts(constraint.conname, kind, keys, validated, expression=expression)
        self.constraints.append(facts)


class _Builder:
    """The schema as the statements so far left it."""

    def __init__(self) -> None:
        self.tables: dict[RelationName, _Table] = {}
        self.indexes: dict[RelationName, IndexFacts] = {}

    def facts(self, source: str) -> SchemaFacts:
        tables = {name: table.frozen() for name, table in self.tables.items()}
        return SchemaFacts(source, tables, dict(self.indexes))

    def add(self, statement: Statement, context: Context) -> None:
        node = statement.node
        if isinstance(node, ast.CreateStmt) and node.relation is not None:
            self._create(node, context)
        elif isinstance(node, ast.AlterTableStmt) and node.objtype == ObjectType.OBJECT_TABLE:
            self._alter(node, context)
        elif isinstance(node, ast.IndexStmt) and node.relation is not None and node.idxname:
            self._index(node, context)
        elif isinstance(node, ast.DropStmt) and node.removeType == ObjectType.OBJECT_TABLE:
            for names in node.objects or ():
                self.tables.pop(qualified_name(names, context), None)
        elif isinstance(node, ast.SelectStmt):
            self._sizes(node, context)

    def _create(self, node: ast.CreateStmt, context: Context) -> None:
        assert node.relation is not None
        table = _Table(relation_name(node.relation, context), partitioned=node.partspec is not None)
        if node.partbound is not None and node.inhRelations:
            parent = relation_name(node.inhRelations[0], context)
            table.partition_of = parent
            if parent in self.tables:
                table.columns = dict(self.tables[parent].columns)
        for element in node.tableElts or ():
            if isinstance(element, ast.ColumnDef) and element.colname:
                table.columns[element.colname] = _column(element)
                for constraint in _inline_constraints(element):
                    table.add_constraint(constraint, context)
            elif isinstance(element, ast.Constraint):
                table.add_constraint(element, context)
        self.tables[table.name] = table

    def _alter(self, node: ast.AlterTableStmt, context: Context) -> None:
        if node.relation is None:
            return
        table = self.tables.get(relation_name(node.relation, context))
        if table is None:
            return
        for command in node.cmds or ():
            if isinstance(command, ast.AlterTableCmd):
                self._command(table, command, context)

    def _command(self, table: _Table, command: ast.AlterTableCmd, context: Context) -> None:
        kind, column, definition = command.subtype, str(command.name or ""), command.def_
        if kind == AlterTableType.AT_AddColumn and isinstance(definition, ast.ColumnDef):
            table.columns[str(definition.colname)] = _column(definition)
            for constraint in _inline_constraints(definition):
                table.add_constraint(constraint, context)
        elif kind == AlterTableType.AT_DropColumn:
            table.columns.pop(column, None)
        elif kind == AlterTableType.AT_AddConstraint and isinstance(definition, ast.Constraint):
            table.add_constraint(definition, context, self._index_columns(definition, table.name, context))
        elif kind == AlterTableType.AT_DropConstraint:
            table.constraints = [c for c in table.constraints if c.name != command.name]
        elif kind == AlterTableType.AT_ValidateConstraint:
            table.constraints = [
                replace(c, validated=True) if c.name == column else c for c in table.constraints
            ]
        elif kind in (AlterTableType.AT_SetNotNull, AlterTableType.AT_DropNotNull):
            table.set_column(column, not_null=kind == AlterTableType.AT_SetNotNull)
        elif kind == AlterTableType.AT_ColumnDefault:
            table.set_column(column, default=_sql(definition) if definition is not None else None)
        elif kind == AlterTableType.AT_AddIdentity:
            table.set_column(column, not_null=True)
        elif kind == AlterTableType.AT_AlterColumnType and isinstance(definition, ast.ColumnDef):
            if definition.typeName is not None:
                table.set_column(column, type=column_type(definition.typeName))
        elif kind == AlterTableType.AT_AttachPartition and isinstance(definition, ast.PartitionCmd):
            self._attach(table, definition, context)

    def _attach(self, parent: _Table, command: ast.PartitionCmd, context: Context) -> None:
        if command.name is not None:
            child = self.tables.get(relation_name(command.name, context))
            if child is not None:
                child.partition_of = parent.name

    def _index_columns(
        self, constraint: ast.Constraint, table: RelationName, context: Context
    ) -> tuple[str, ...]:
        """The columns of the index `ADD CONSTRAINT ... USING INDEX name` adopts."""
        if not constraint.indexname:
            return ()
        found = self.indexes.get(resolve(table.schema, constraint.indexname, context))
        return found.columns if found is not None else ()

    def _index(self, node: ast.IndexStmt, context: Context) -> None:
        assert node.relation is not None and node.idxname
        table = relation_name(node.relation, context)
        elements = [e for e in node.indexParams or () if isinstance(e, ast.IndexElem)]
        columns = tuple(str(e.name) for e in elements if e.name)
        name = RelationName(table.schema, node.idxname)
        self.indexes[name] = IndexFacts(name, table, columns, bool(node.unique))

    def _sizes(self, node: ast.SelectStmt, context: Context) -> None:
        for call in iter_nodes(node):
            if isinstance(call, ast.FuncCall) and function_name(call) == STATS_FUNCTION:
                self._relation_stats(dict(_named_arguments(call.args or ())), context)

    def _relation_stats(self, arguments: dict[str, Any], context: Context) -> None:
        name = arguments.get("relname")
        if not isinstance(name, str):
            return
        schema = arguments.get("schemaname")
        table = self.tables.get(resolve(schema if isinstance(schema, str) else None, name, context))
        if table is None:
            return
        rows, pages = _number(arguments.get("reltuples")), _number(arguments.get("relpages"))
        table.rows = max(0, int(rows)) if rows is not None and rows >= 0 else table.rows
        table.bytes = int(pages) * BLOCK_SIZE if pages is not None else table.bytes


def _column(definition: ast.ColumnDef) -> ColumnFacts:
    type_name = definition.typeName
    kind = column_type(type_name) if type_name is not None else None
    constraints = definition.constraints or ()
    kinds = {c.contype for c in constraints if isinstance(c, ast.Constraint)}
    defaults = [c.raw_expr for c in constraints if isinstance(c, ast.Constraint) and c.contype == _DEFAULT]
    default = _sql(defaults[0]) if defaults else None
    serial = is_serial(definition)
    not_null = serial or any(k in kinds for k in _NOT_NULL_KINDS)
    return ColumnFacts(str(definition.colname), kind, not_null, default)


def _inline_constraints(definition: ast.ColumnDef) -> Iterator[ast.Constraint]:
    """A column's own PRIMARY KEY / UNIQUE / CHECK / REFERENCES, as table constraints on it."""
    for constraint in definition.constraints or ():
        if isinstance(constraint, ast.Constraint) and constraint.contype in CONSTRAINT_KINDS:
            if constraint.contype == ConstrType.CONSTR_NOTNULL:
                continue  # already the column's not_null
            yield replace_keys(constraint, str(definition.colname))


def replace_keys(constraint: ast.Constraint, column: str) -> ast.Constraint:
    """A column constraint with its column as the key list (pglast leaves it empty)."""
    if constraint.keys:
        return constraint
    copy = ast.Constraint(constraint())
    copy.keys = (ast.String(column),)
    return copy


def _named_arguments(args: Any) -> Iterator[tuple[str, Any]]:
    """('name', value) pairs of a pg_restore_*_stats(...) call's variadic arguments."""
    values = [const_value(a) for a in args]
    for name, value in zip(values[::2], values[1::2], strict=False):
        if isinstance(name, str):
            yield name, value


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _sql(node: Any) -> str:
    return str(RawStream()(node))
