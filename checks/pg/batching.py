"""Does an UPDATE/DELETE touch a bounded set of rows? A syntactic heuristic shared by
unbatched-backfill and access-exclusive-with-slow-work.

A WHERE clause *bounds* the write when, among its AND-ed conditions, one of these holds
(for OR, every branch must be bounded):
- `col = value` / `value = col` / `col IN (values)` / `col = ANY(value)` on a column
  the statement does not SET: a targeted fix (`WHERE id = 42`, `WHERE email = '...'`);
- a two-sided range on one column: `col BETWEEN a AND b`, or `col >= a AND col < b`;
- a LIMITed subquery: `id IN (SELECT id ... LIMIT n)`, `ctid = ANY(ARRAY(SELECT ... LIMIT n))`;
- `WHERE CURRENT OF cursor`.
A LIMITed CTE or FROM/USING subquery also bounds it. Everything else (no WHERE,
`col IS NULL`, `col <> x`, one-sided ranges, filtering on the column being SET such as
`SET status = 'b' WHERE status = 'a'`, joins to another table) is unbounded: it scales
with the table. Values are constants, parameters, casts, arithmetic and function calls
of values, and scalar subqueries (`id = (SELECT max(id) ...)`); inside a DO block a
one-part name on the value side counts too (a PL/pgSQL variable, as in a batching loop).
Migration tools' own version tables (`alembic_version`) hold one row and are exempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pglast import ast
from pglast.enums import A_Expr_Kind, BoolExprType, SetOperation, SubLinkType

_LOWER = frozenset({">", ">="})
_UPPER = frozenset({"<", "<="})
# Single-row tables migration tools write in every revision; Alembic's offline SQL ends
# each revision with `UPDATE alembic_version SET version_num=... WHERE version_num = ...`.
BOOKKEEPING_TABLES = frozenset({"alembic_version"})
_ARITHMETIC = frozenset({"+", "-", "*", "/"})
_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


def is_unbounded_write(node: Any, in_do_block: bool = False) -> bool:
    """True for an UPDATE or DELETE whose rows are not bounded (see the module doc)."""
    if not isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
        return False
    if node.relation is None or node.relation.relname in BOOKKEEPING_TABLES:
        return False
    if _has_limited_source(node):
        return False
    assigned = frozenset(t.name for t in getattr(node, "targetList", None) or () if t.name)
    return not _bounds(node.whereClause, _Scope(assigned, in_do_block))


def unbounded_writes(node: Any, in_do_block: bool = False) -> list[ast.UpdateStmt | ast.DeleteStmt]:
    """The unbounded UPDATEs/DELETEs a statement runs: itself, and those in its WITH
    clause (`WITH moved AS (DELETE ... RETURNING *) INSERT ...`). A LIMITed sibling CTE
    bounds a data-modifying one, as a LIMITed CTE of its own does."""
    found = [node] if is_unbounded_write(node, in_do_block) else []
    ctes = [
        c
        for c in getattr(getattr(node, "withClause", None), "ctes", None) or ()
        if isinstance(c, ast.CommonTableExpr)
    ]
    if any(_limited(c.ctequery) for c in ctes):
        return found
    for cte in ctes:
        found.extend(unbounded_writes(cte.ctequery, in_do_block))
    return found


def is_unbounded_read(select: Any, in_do_block: bool = False) -> bool:
    """True for a query (as in INSERT ... SELECT) that scans without a bound: it reads a
    table and has neither a LIMIT nor a bounding WHERE (any arm of a UNION counts)."""
    if not isinstance(select, ast.SelectStmt):
        return False
    if select.op != SetOperation.SETOP_NONE:
        arms = (select.larg, select.rarg)
        return any(is_unbounded_read(arm, in_do_block) for arm in arms)
    if select.valuesLists or not select.fromClause or select.limitCount is not None:
        return False
    return not _bounds(select.whereClause, _Scope(frozenset(), in_do_block))


@dataclass(frozen=True)
class _Scope:
    assigned: frozenset[str]  # columns the UPDATE sets: filtering on them is a backfill
    in_do_block: bool


def _bounds(expr: Any, scope: _Scope) -> bool:
    if isinstance(expr, ast.BoolExpr):
        args = expr.args or ()
        if expr.boolop == BoolExprType.AND_EXPR:
            return any(_bounds(a, scope) for a in args) or _two_sided(args, scope)
        if expr.boolop == BoolExprType.OR_EXPR:
            return bool(args) and all(_bounds(a, scope) for a in args)
        return False
    if isinstance(expr, ast.CurrentOfExpr):
        return True
    if isinstance(expr, ast.SubLink):
        return expr.subLinkType == SubLinkType.ANY_SUBLINK and _limited(expr.subselect)
    if isinstance(expr, ast.A_Expr):
        return _expr_bounds(expr, scope)
    return False


def _expr_bounds(expr: ast.A_Expr, scope: _Scope) -> bool:
    operator = _operator(expr)
    if expr.kind in (A_Expr_Kind.AEXPR_BETWEEN, A_Expr_Kind.AEXPR_BETWEEN_SYM):
        return _column(expr.lexpr) is not None
    if expr.kind == A_Expr_Kind.AEXPR_IN and operator == "=":
        values = expr.rexpr if isinstance(expr.rexpr, tuple) else (expr.rexpr,)
        return _key_column(expr.lexpr, scope) and all(_is_value(v, scope) for v in values)
    if expr.kind == A_Expr_Kind.AEXPR_OP_ANY and operator == "=":
        right = expr.rexpr
        limited = isinstance(right, ast.SubLink) and _limited(right.subselect)
        return _key_column(expr.lexpr, scope) and (limited or _is_value(right, scope))
    if expr.kind == A_Expr_Kind.AEXPR_OP and operator == "=":
        pairs = ((expr.lexpr, expr.rexpr), (expr.rexpr, expr.lexpr))
        return any(_key_column(c, scope) and _is_value(v, scope) for c, v in pairs)
    return False


def _two_sided(conditions: tuple[Any, ...], scope: _Scope) -> bool:
    """`col >= a AND col < b` (in any order and orientation) bounds a key range."""
    lower: set[str] = set()
    upper: set[str] = set()
    for condition in conditions:
        if not isinstance(condition, ast.A_Expr) or condition.kind != A_Expr_Kind.AEXPR_OP:
            continue
        operator, column = _operator(condition), _column(condition.lexpr)
        if column is None or not _is_value(condition.rexpr, scope):
            operator, column = _FLIPPED.get(operator, ""), _column(condition.rexpr)
            if column is None or not _is_value(condition.lexpr, scope):
                continue
        (lower if operator in _LOWER else upper if operator in _UPPER else set()).add(column)
    return bool(lower & upper)


def _operator(expr: ast.A_Expr) -> str:
    names = expr.name or ()
    last = names[-1] if names else None
    return str(last.sval) if isinstance(last, ast.String) else ""


def _column(node: Any) -> str | None:
    """The column name of `col` or `alias.col`."""
    if isinstance(node, ast.ColumnRef) and node.fields:
        last = node.fields[-1]
        return last.sval if isinstance(last, ast.String) else None
    return None


def _key_column(node: Any, scope: _Scope) -> bool:
    column = _column(node)
    return column is not None and column not in scope.assigned


def _is_value(node: Any, scope: _Scope) -> bool:
    """One value per statement: no column of the row being filtered in it."""
    if isinstance(node, (ast.A_Const, ast.ParamRef, ast.SQLValueFunction)):
        return True
    if isinstance(node, ast.SubLink):  # `(SELECT max(id) FROM t)`: one row at most
        return node.subLinkType == SubLinkType.EXPR_SUBLINK
    if isinstance(node, ast.TypeCast):
        return _is_value(node.arg, scope)
    if isinstance(node, ast.FuncCall):  # `lower('A@B.C')`, `now()`
        return all(_is_value(a, scope) for a in node.args or ())
    if isinstance(node, ast.A_ArrayExpr):
        return all(_is_value(e, scope) for e in node.elements or ())
    if isinstance(node, ast.A_Expr) and _operator(node) in _ARITHMETIC:  # `lo + 5000`
        operands = [o for o in (node.lexpr, node.rexpr) if o is not None]
        return bool(operands) and all(_is_value(o, scope) for o in operands)
    # In PL/pgSQL a bare name on the value side is (usually) a loop variable.
    return scope.in_do_block and isinstance(node, ast.ColumnRef) and len(node.fields or ()) == 1


def _limited(select: Any) -> bool:
    return isinstance(select, ast.SelectStmt) and select.limitCount is not None


def _has_limited_source(node: ast.UpdateStmt | ast.DeleteStmt) -> bool:
    """A LIMITed CTE or subquery the statement joins to bounds it (batch by join)."""
    ctes = node.withClause.ctes if node.withClause is not None else ()
    if any(isinstance(c, ast.CommonTableExpr) and _limited(c.ctequery) for c in ctes or ()):
        return True
    sources = node.fromClause if isinstance(node, ast.UpdateStmt) else node.usingClause
    return any(isinstance(s, ast.RangeSubselect) and _limited(s.subquery) for s in sources or ())
