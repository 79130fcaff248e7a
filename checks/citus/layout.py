"""A schema as Citus sees it: each table's keys and foreign keys (from schema.sql) and how
it is distributed (from citus.sql's create_distributed_table / create_reference_table
calls). Parsed with pglast; statements that are not about tables are skipped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pglast
from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.citus.sources import Source
from agentddl.generator.errors import AgentDDLError


@dataclass(frozen=True)
class Key:
    """A primary key, unique constraint or unique index: what must hold the distribution column."""

    name: str
    table: str
    columns: tuple[str, ...]  # plain columns; an expression's columns are not listed
    kind: str  # primary key | unique constraint | unique index
    file: str
    line: int
    column: int


@dataclass(frozen=True)
class ForeignKey:
    name: str
    table: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    file: str
    line: int
    column: int


@dataclass(frozen=True)
class Placement:
    """How citus.sql distributes a table: hash by `column` in co-location `group`, or a
    reference table (column None)."""

    table: str
    column: str | None
    group: str
    file: str
    line: int


@dataclass
class Layout:
    tables: dict[str, list[str]] = field(default_factory=dict)  # schema.table -> columns
    keys: list[Key] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    placements: dict[str, Placement] = field(default_factory=dict)

    def distributed(self, table: str) -> Placement | None:
        placement = self.placements.get(table)
        return placement if placement and placement.column else None

    def is_reference(self, table: str) -> bool:
        placement = self.placements.get(table)
        return placement is not None and placement.column is None

    def resolve(self, schema: str | None, name: str) -> str | None:
        """A table named in a query: schema-qualified, else the one table of that name."""
        if schema:
            return f"{schema}.{name}" if f"{schema}.{name}" in self.tables else None
        found = [t for t in self.tables if t.split(".", 1)[1] == name]
        return found[0] if len(found) == 1 else None


def parse(source: Source) -> list[ast.RawStmt]:
    try:
        return list(pglast.parse_sql(source.text))
    except pglast.parser.ParseError as error:
        at = getattr(error, "location", None)
        line, column = source.position(at) if at else (1, 1)
        raise AgentDDLError(f"{source.path}:{line}:{column}: not valid SQL: {error.args[0]}") from None


def read_layout(schema_sql: Source, citus_sql: Source | None) -> Layout:
    layout = Layout()
    for raw in parse(schema_sql):
        _schema_statement(layout, schema_sql, raw)
    if citus_sql is not None:
        for raw in parse(citus_sql):
            _placement(layout, citus_sql, raw)
    return layout


def qualified(relation: Any) -> str:
    return f"{relation.schemaname or 'public'}.{relation.relname}"


def _schema_statement(layout: Layout, source: Source, raw: ast.RawStmt) -> None:
    stmt: Any = raw.stmt
    line, column = source.position(raw.stmt_location or 0)
    where = (source.path, line, column)
    if isinstance(stmt, ast.CreateStmt):
        table = qualified(stmt.relation)
        elements = stmt.tableElts or ()
        layout.tables[table] = [str(e.colname) for e in elements if isinstance(e, ast.ColumnDef)]
        for element in elements:
            if isinstance(element, ast.ColumnDef):
                for constraint in element.constraints or ():
                    _constraint(layout, table, constraint, (str(element.colname),), where)
            elif isinstance(element, ast.Constraint):
                _constraint(layout, table, element, None, where)
    elif isinstance(stmt, ast.AlterTableStmt):
        table = qualified(stmt.relation)
        for cmd in stmt.cmds or ():
            if isinstance(cmd, ast.AlterTableCmd) and isinstance(cmd.def_, ast.Constraint):
                _constraint(layout, table, cmd.def_, None, where)
    elif isinstance(stmt, ast.IndexStmt) and stmt.unique:
        table = qualified(stmt.relation)
        params: Any = stmt.indexParams or ()
        columns = tuple(str(e.name) for e in params if isinstance(e, ast.IndexElem) and e.name)
        layout.keys.append(Key(stmt.idxname or "?", table, columns, "unique index", *where))


def _constraint(
    layout: Layout, table: str, c: Any, column: tuple[str, ...] | None, where: tuple[str, int, int]
) -> None:
    name = c.conname or f"{table.split('.')[1]}_{c.contype.name.lower()}"
    keys = column or tuple(_names(c.keys))
    if c.contype in (ConstrType.CONSTR_PRIMARY, ConstrType.CONSTR_UNIQUE):
        kind = "primary key" if c.contype == ConstrType.CONSTR_PRIMARY else "unique constraint"
        layout.keys.append(Key(name, table, keys, kind, *where))
    elif c.contype == ConstrType.CONSTR_FOREIGN and c.pktable is not None:
        fk_columns = column or tuple(_names(c.fk_attrs))
        layout.foreign_keys.append(
            ForeignKey(name, table, fk_columns, qualified(c.pktable), tuple(_names(c.pk_attrs)), *where)
        )


def _names(nodes: Any) -> list[str]:
    return [str(n.sval) for n in nodes or () if isinstance(n, ast.String)]


def _placement(layout: Layout, source: Source, raw: ast.RawStmt) -> None:
    """SELECT create_distributed_table(...) / create_reference_table(...)."""
    stmt: Any = raw.stmt
    if not isinstance(stmt, ast.SelectStmt) or not stmt.targetList:
        return
    call: Any = stmt.targetList[0].val
    if not isinstance(call, ast.FuncCall) or not call.funcname:
        return
    function = call.funcname[-1].sval
    positional = [_text(a) for a in call.args or () if not isinstance(a, ast.NamedArgExpr)]
    named = {a.name: _text(a.arg) for a in call.args or () if isinstance(a, ast.NamedArgExpr)}
    line, _ = source.position(raw.stmt_location or 0)
    if function == "create_reference_table" and positional:
        table = _table_name(positional[0])
        layout.placements[table] = Placement(table, None, "reference", source.path, line)
    elif function == "create_distributed_table" and len(positional) >= 2:
        table, column = _table_name(positional[0]), positional[1] or ""
        colocate = named.get("colocate_with") or (positional[3] if len(positional) > 3 else None) or "default"
        layout.placements[table] = Placement(
            table, column, _group(layout, table, column, colocate), source.path, line
        )


def _group(layout: Layout, table: str, column: str, colocate: str) -> str:
    if colocate == "none":
        return table  # a group of its own
    if colocate == "default":
        return f"default:{column}"  # Citus groups by the column's type; approximated by name
    other = layout.placements.get(_table_name(colocate))
    return other.group if other else f"unknown:{colocate}"


def _table_name(text: str | None) -> str:
    name = (text or "").replace('"', "")
    return name if "." in name else f"public.{name}"


def _text(node: Any) -> str | None:
    if isinstance(node, ast.A_Const) and isinstance(node.val, ast.String):
        return str(node.val.sval)
    if isinstance(node, ast.TypeCast):
        return _text(node.arg)
    return None
