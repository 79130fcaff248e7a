"""Index keys compared by definition: a suggestion against the indexes a table has.

Both sides go through pglast: a key element is (expression, operator class, direction,
NULLS placement), with constants' casts dropped (`'k'::text` is `'k'`, as PostgreSQL
prints an index it was given as `'k'`), so `(metadata ->> 'k')` in a query and
`metadata ->> 'k'::text` in pg_get_indexdef compare equal. A key is served by an
index of the same method that leads with it (a B-tree read either way) on the same or
no predicate. Keys are also kept to the table's own columns (`valid_parts`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from agentddl.checks.audit.candidate import key_sql
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.shape import IndexShape, KeyPart, nodes

Element = tuple[str, str, bool, bool]  # (expression, operator class, DESC, NULLS FIRST)


def element(definition: str) -> Element | None:
    """One key element of CREATE INDEX, normalized (None: not one we can read)."""
    for text in (definition, f"({definition})"):
        try:
            statement: Any = pglast.parse_sql(f"CREATE INDEX i ON t ({text})")[0].stmt
        except pglast.parser.ParseError:
            continue
        item = statement.indexParams[0]
        expression = str(item.name) if item.name else _normal(item.expr)
        descending = item.ordering == enums.SortByDir.SORTBY_DESC
        nulls = item.nulls_ordering
        nulls_first = (
            descending
            if nulls == enums.SortByNulls.SORTBY_NULLS_DEFAULT
            else (nulls == enums.SortByNulls.SORTBY_NULLS_FIRST)
        )
        opclass = ".".join(str(n.sval) for n in item.opclass or ())
        return (expression, opclass, descending, nulls_first)
    return None


def _normal(node: Any) -> str:
    """An expression deparsed, constants' casts dropped."""
    for parent in nodes(node):
        for slot in type(parent).__slots__:
            child = getattr(parent, slot, None)
            if isinstance(child, ast.TypeCast) and isinstance(child.arg, ast.A_Const):
                setattr(parent, slot, child.arg)
            elif isinstance(child, tuple) and any(isinstance(c, ast.TypeCast) for c in child):
                setattr(parent, slot, tuple(_uncast(c) for c in child))
    return str(RawStream()(_uncast(node)))


def _uncast(node: Any) -> Any:
    return node.arg if isinstance(node, ast.TypeCast) and isinstance(node.arg, ast.A_Const) else node


def predicate(text: str) -> str:
    """A WHERE clause normalized the same way ('' stays '')."""
    if not text:
        return ""
    try:
        statement: Any = pglast.parse_sql(f"SELECT 1 WHERE {text}")[0].stmt
    except pglast.parser.ParseError:
        return text
    return _normal(statement.whereClause)


def covered_by_existing(shape: IndexShape, table: str, catalog: Catalog, method: str) -> bool:
    """An index of `method` on the table already leads with the shape's key (either way
    for a B-tree), with no predicate or the shape's: a new one would duplicate it or be
    its prefix (a partial copy of a full index would only be smaller)."""
    if shape.arms:
        return all(covered_by_existing(arm, table, catalog, method) for arm in shape.arms)
    key = [element(key_sql(p)) for p in shape.parts]
    if not key or None in key:
        return False
    where = predicate(" AND ".join(shape.partial))
    for index, owner in catalog.index_table.items():
        if owner != table or catalog.methods.get(index, "btree") != method:
            continue
        if (existing_where := predicate(catalog.predicates.get(index, ""))) and existing_where != where:
            continue
        if _leads(_existing_key(catalog, index)[: len(key)], key, len(dict.fromkeys(shape.equality)), method):
            return True
    return False


def _leads(existing: list[Element | None], key: list[Element | None], equal: int, method: str) -> bool:
    """The existing key's first elements are `key`'s: columns compared for equality in
    any direction (one value: no order), the rest as they are or all reversed (a B-tree
    read backwards)."""
    if len(existing) < len(key) or None in existing:
        return False
    if [e[:2] for e in existing[:equal] if e] != [k[:2] for k in key[:equal] if k]:
        return False
    rest, wanted = existing[equal:], key[equal:]
    return rest == wanted or (method == "btree" and [_flipped(e) for e in rest if e] == wanted)


def _existing_key(catalog: Catalog, index: str) -> list[Element | None]:
    defs = catalog.index_defs.get(index)
    if defs is None:  # a catalog read without definitions: plain column names
        return [(c, "", False, False) for c in catalog.index_columns.get(index, ())]
    return [element(d) for d in defs]


def _flipped(item: Element) -> Element:
    return (item[0], item[1], not item[2], not item[3])


def valid_parts(shape: IndexShape, table: str, catalog: Catalog) -> IndexShape | None:
    """The shape kept to `table`'s own columns: a key part, partial term or arm naming
    anything else (a subquery's output, another table's column) is left out; None when
    nothing is left. A catalog that does not list the table's columns keeps all."""
    columns = catalog.columns.get(table)
    if columns is None:
        return shape

    def ok(text: str) -> bool:
        found = _column_refs(text)
        return found is not None and found <= set(columns)

    def parts(items: list[KeyPart]) -> list[KeyPart]:
        return [p for p in items if ok(p.target)]

    arms = [a for arm in shape.arms if (a := valid_parts(arm, table, catalog)) is not None]
    kept = replace(
        shape,
        equality=parts(shape.equality),
        order=parts(shape.order),
        range=parts(shape.range),
        gin=parts(shape.gin),
        partial=[p for p in shape.partial if ok(p)],
        arms=arms if len(arms) == len(shape.arms) else [],
    )
    return kept if kept.parts or kept.arms or kept.gin else None


def _column_refs(text: str) -> set[str] | None:
    """The column names an expression (or bare column) reads; None if it doesn't parse."""
    try:
        statement = pglast.parse_sql(f"SELECT {text}")[0].stmt
    except pglast.parser.ParseError:
        return None
    refs: list[Any] = [n.fields for n in nodes(statement) if isinstance(n, ast.ColumnRef) and n.fields]
    return {str(fields[-1].sval) for fields in refs if isinstance(fields[-1], ast.String)}
