"""What a query asks of one table's index, read from its SQL (pglast AST).

Columns compared for equality (with a parameter, an expression or another table's
column, in WHERE or an inner join's ON) lead the key; then the ORDER BY columns with
their direction and NULLS placement (so `ORDER BY ... LIMIT` stops early: the queue and
append-log shapes), or else the first range column. Comparisons with constants
(`status = 'queued'`, `delivered_at IS NULL`) become the partial index's WHERE, so the
index holds only the hot subset. General advisors put the constant column first and the
sort column last without DESC; this keeps the order the query reads.

A function of the table's columns (`lower(email) = $1`) is keyed as that expression,
and a LIKE (a prefix pattern) as the column with text_pattern_ops, which serves
`LIKE 'abc%'` under any collation. Containment and key tests (`metadata @> $1`,
`tags && $1`, `doc ? 'k'`) are what a GIN index serves, not a B-tree: they are kept
apart (`gin`), and the suggestion picks the operator class by the column's type.

A column is this table's only when it is named through the table's alias (or bare)
in the query level that reads the table: a subquery's output (`latest_at` of
`(SELECT max(created_at) AS latest_at ...)`) is not a column of the table it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from agentddl.checks.audit.placeholders import numbered

RANGE_OPS = ("<", "<=", ">", ">=")
COMMUTED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "~~": "~~"}
LIKE_OPS = ("~~",)  # LIKE; ILIKE (~~*) needs a trigram index, not a B-tree
GIN_OPS = ("@>", "?", "?|", "?&", "&&")  # containment, key existence, overlap


@dataclass(frozen=True)
class KeyPart:
    """One index key element: a column name or "(expression)", and what follows it."""

    target: str
    suffix: str = ""  # "DESC", "DESC NULLS LAST", "NULLS FIRST", "text_pattern_ops"

    def __str__(self) -> str:
        return f"{self.target} {self.suffix}".strip()


@dataclass
class IndexShape:
    equality: list[KeyPart] = field(default_factory=list)
    order: list[KeyPart] = field(default_factory=list)
    range: list[KeyPart] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # predicates on constants, alias stripped
    gin: list[KeyPart] = field(default_factory=list)  # containment/key tests: KeyPart(column, operator)
    # an OR whose every arm constrains the table: no one key serves it, one index per
    # arm does (the planner combines them in a BitmapOr); each arm carries the AND's rest
    arms: list[IndexShape] = field(default_factory=list)

    @property
    def parts(self) -> list[KeyPart]:
        key = list(dict.fromkeys(self.equality))
        targets = {p.target for p in key}
        tail = [p for p in self.order if p.target not in targets]
        if not tail and self.range and self.range[0].target not in targets:
            tail = [self.range[0]]
        return key + tail

    @property
    def key(self) -> list[str]:
        return [str(p) for p in self.parts]


def index_shapes(statement: str, table: str) -> list[IndexShape]:
    """What each query level that reads `table` asks of it (a CTE that claims a row and
    the UPDATE by key that follows are two shapes, not one merged key); levels that ask
    nothing an index key could serve are left out."""
    try:
        tree = pglast.parse_sql(numbered(statement))
    except pglast.parser.ParseError:
        return []
    shapes = []
    for node in nodes(tree[0].stmt):
        if isinstance(node, ast.SelectStmt | ast.UpdateStmt | ast.DeleteStmt):
            for alias in _aliases_of(node, table):
                shape = _shape_of(node, alias)
                if shape.key or shape.arms or shape.gin:
                    shapes.append(shape)
    return shapes


def index_shape(statement: str, table: str) -> IndexShape | None:
    """The first of index_shapes, or None."""
    return next(iter(index_shapes(statement, table)), None)


def _shape_of(node: Any, alias: str) -> IndexShape:
    shape = IndexShape()
    for quals in _inner_join_quals(node, alias):  # the join key leads
        _read_where(quals, alias, shape)
    _read_where(getattr(node, "whereClause", None), alias, shape)
    for sort in getattr(node, "sortClause", None) or ():
        if (target := _target(sort.node, alias)) is not None:
            shape.order.append(KeyPart(target, _order_suffix(sort)))
    shape.partial = list(dict.fromkeys(shape.partial))
    for arm in shape.arms:
        arm.equality[:0] = shape.equality
        arm.range += shape.range
        arm.partial = list(dict.fromkeys(shape.partial + arm.partial))
    return shape


def nodes(node: Any) -> Iterator[Any]:
    """Every AST node under node (lists followed), depth first."""
    if isinstance(node, list | tuple):
        for item in node:
            yield from nodes(item)
    elif isinstance(node, ast.Node):
        yield node
        for slot in type(node).__slots__:  # type: ignore[attr-defined]
            yield from nodes(getattr(node, slot, None))


def _aliases_of(statement: Any, table: str) -> list[str]:
    """The names `table` goes by in this query level's own FROM (joins included; a
    subquery or function in FROM is a level of its own)."""
    sources = list(getattr(statement, "fromClause", None) or ())
    sources += list(getattr(statement, "usingClause", None) or ())
    if isinstance(getattr(statement, "relation", None), ast.RangeVar):
        sources.append(statement.relation)
    return [
        str(rv.alias.aliasname if rv.alias else rv.relname)
        for source in sources
        for rv in _level_range_vars(source)
        if rv.relname == table
    ]


def _level_range_vars(source: Any) -> list[Any]:
    if isinstance(source, ast.RangeVar):
        return [source]
    if isinstance(source, ast.JoinExpr):
        return _level_range_vars(source.larg) + _level_range_vars(source.rarg)
    return []


def _inner_join_quals(statement: Any, alias: str) -> Iterator[Any]:
    """ON clauses that filter `alias`'s rows: inner joins, and outer joins where the
    alias is the side that may go missing (the preserved side is not filtered by ON)."""
    for join in nodes(getattr(statement, "fromClause", None) or ()):
        if not isinstance(join, ast.JoinExpr) or join.quals is None:
            continue
        right = {str(rv.alias.aliasname if rv.alias else rv.relname) for rv in _range_vars(join.rarg)}
        left = {str(rv.alias.aliasname if rv.alias else rv.relname) for rv in _range_vars(join.larg)}
        kind = join.jointype
        if (
            kind == enums.JoinType.JOIN_INNER
            or (kind == enums.JoinType.JOIN_LEFT and alias in right)
            or (kind == enums.JoinType.JOIN_RIGHT and alias in left)
        ):
            yield join.quals


def _range_vars(node: Any) -> list[Any]:
    return [rv for rv in nodes(node) if isinstance(rv, ast.RangeVar)]


def _read_where(where: Any, alias: str, shape: IndexShape) -> None:
    terms = (
        where.args
        if isinstance(where, ast.BoolExpr) and where.boolop == enums.BoolExprType.AND_EXPR
        else [where]
    )
    for term in terms or ():
        if isinstance(term, ast.NullTest) and _target(term.arg, alias):
            shape.partial.append(_strip(term, alias))
        elif isinstance(term, ast.A_Expr):
            _read_comparison(term, alias, shape)
        elif _is_or(term) and not shape.arms:
            arms = [IndexShape() for _ in term.args]
            for arm, arg in zip(arms, term.args, strict=True):
                _read_where(arg, alias, arm)
            if all(arm.key for arm in arms):
                shape.arms = arms


def _is_or(node: Any) -> bool:
    return isinstance(node, ast.BoolExpr) and node.boolop == enums.BoolExprType.OR_EXPR


def _read_comparison(term: ast.A_Expr, alias: str, shape: IndexShape) -> None:
    op = term.name[0].sval if term.name else ""
    left, right = term.lexpr, term.rexpr
    target = _target(left, alias)
    if target is None and op in COMMUTED and not isinstance(right, list | tuple):
        target, left, right, op = _target(right, alias), right, left, COMMUTED[op]  # $1 = x.col
    if target is None or _target(right, alias) is not None:
        return  # not about this table, or comparing two of its own columns
    constant = _constant(right)
    if op in GIN_OPS and not target.startswith("("):
        shape.gin.append(KeyPart(target, op))
    elif (term.kind == enums.A_Expr_Kind.AEXPR_IN or op == "=") and constant:
        shape.partial.append(_strip(term, alias))
    elif op == "=":
        shape.equality.append(KeyPart(target))
    elif op in LIKE_OPS and term.kind == enums.A_Expr_Kind.AEXPR_LIKE:
        if _prefix_pattern(right) and not target.startswith("("):
            shape.range.append(KeyPart(target, "text_pattern_ops"))
    elif op in RANGE_OPS or term.kind == enums.A_Expr_Kind.AEXPR_BETWEEN:
        shape.range.append(KeyPart(target))


def _target(node: Any, alias: str) -> str | None:
    """The column (or "(expression)" over the alias's columns only) a node reads."""
    if isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.ColumnRef):
        return _column(node, alias)
    if isinstance(node, ast.FuncCall | ast.A_Expr | ast.CoalesceExpr):
        inside = list(nodes(node))
        refs = [n for n in inside if isinstance(n, ast.ColumnRef)]
        if (
            refs
            and all(_column(r, alias) for r in refs)
            and not any(isinstance(n, ast.SubLink) for n in inside)
        ):
            return f"({_strip(node, alias)})"
    return None


def _column(node: ast.ColumnRef, alias: str) -> str | None:
    names = [f.sval for f in node.fields or () if isinstance(f, ast.String)]
    if len(names) == 2 and names[0] == alias:
        return str(names[1])
    return str(names[0]) if len(names) == 1 else None


def _order_suffix(sort: ast.SortBy) -> str:
    """DESC, and NULLS FIRST/LAST where it is not the direction's default (an index built
    DESC is NULLS FIRST: it can't return `DESC NULLS LAST` in order)."""
    descending = sort.sortby_dir == enums.SortByDir.SORTBY_DESC
    nulls = sort.sortby_nulls
    words = ["DESC"] if descending else []
    if nulls != enums.SortByNulls.SORTBY_NULLS_DEFAULT:
        nulls_first = nulls == enums.SortByNulls.SORTBY_NULLS_FIRST
        if nulls_first != descending:  # the default: ASC NULLS LAST, DESC NULLS FIRST
            words.append("NULLS FIRST" if nulls_first else "NULLS LAST")
    return " ".join(words)


def _prefix_pattern(node: Any) -> bool:
    """A LIKE pattern a B-tree can range over: a parameter (its value decides; the custom
    plan sees it) or a constant that does not start with a wildcard."""
    if isinstance(node, ast.A_Const):
        value = getattr(node.val, "sval", None)
        return isinstance(value, str) and value[:1] not in ("%", "_", "")
    return True


def _constant(node: Any) -> bool:
    if isinstance(node, list | tuple):
        return all(_constant(n) for n in node)
    if isinstance(node, ast.TypeCast):
        return _constant(node.arg)
    return isinstance(node, ast.A_Const)


def _strip(node: Any, alias: str) -> str:
    return re.sub(rf"\b{re.escape(alias)}\.", "", RawStream()(node))
