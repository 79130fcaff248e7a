"""Is a statement confined to one tenant? Every reference to a distributed table must be
tied to a parameter (or a constant) through equalities on the distribution column:
`a.tenant_id = :tenant_id`, a join `r.tenant_id = a.tenant_id` to a tied reference, or a
CTE / subquery whose tenant column comes from a tied reference.

Equalities count only as conjuncts of WHERE / JOIN ... ON (an OR may not hold); each
column reference is resolved to the nearest enclosing query level that names its alias.
This is a model of the rows a statement can touch, not of Citus's planner: a statement
confined through a CTE may still be planned by Citus as more than one step (PLAN.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pglast import ast

from agentddl.checks.citus.layout import Layout
from agentddl.checks.citus.walk import nodes

PINNED = "<parameter>"
_SCOPES = (ast.SelectStmt, ast.UpdateStmt, ast.DeleteStmt, ast.InsertStmt)


@dataclass(frozen=True)
class TableRef:
    table: str  # schema.table
    alias: str
    location: int  # byte offset of the reference
    node: str  # its distribution column's node in the union-find


@dataclass
class _Scope:
    ident: int
    aliases: dict[str, str] = field(default_factory=dict)  # alias -> node of its tenant column
    ctes: dict[str, str] = field(default_factory=dict)  # CTE name -> node of its output


@dataclass
class Confinement:
    """Equalities (symmetric, a union-find) and flows (one way: a CTE's, a sub-select's or a
    UNION's output takes its values from its sources, tied only when every source is)."""

    refs: list[TableRef]
    parents: dict[str, str]
    sources: dict[str, list[str]]

    def find(self, node: str) -> str:
        while self.parents.get(node, node) != node:
            node = self.parents[node]
        return node

    def untied(self) -> list[TableRef]:
        classes: dict[str, list[str]] = {}
        for node in {*self.parents, *self.sources}:
            classes.setdefault(self.find(node), []).append(node)
        memo: dict[str, bool] = {}
        return [r for r in self.refs if not self._tied(self.find(r.node), classes, memo)]

    def _tied(self, root: str, classes: dict[str, list[str]], memo: dict[str, bool]) -> bool:
        if root in memo:
            return memo[root]
        memo[root] = False  # a cycle (a recursive CTE) ties nothing by itself
        tied = root == self.find(PINNED) or any(
            self.sources.get(member)
            and all(self._tied(self.find(s), classes, memo) for s in self.sources[member])
            for member in classes.get(root, [root])
        )
        memo[root] = tied
        return tied


def confinement(statement: Any, layout: Layout, column_of: dict[str, str]) -> Confinement:
    """column_of: distributed table -> its distribution column."""
    walker = _Walker(layout, column_of)
    walker.statement(statement, [])
    return Confinement(walker.refs, walker.parents, walker.sources)


class _Walker:
    def __init__(self, layout: Layout, column_of: dict[str, str]) -> None:
        self.layout, self.column_of = layout, column_of
        self.refs: list[TableRef] = []
        self.parents: dict[str, str] = {}
        self.sources: dict[str, list[str]] = {}  # node -> the nodes its values come from
        self.count = 0
        self.positional: dict[int, list[str | None]] = {}  # query level -> its output columns' nodes
        self.columns = set(column_of.values())

    def union(self, a: str | None, b: str | None) -> None:
        if a is None or b is None:
            return
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parents[ra] = rb

    def flow(self, target: str | None, source: str | None) -> None:
        """`target` takes its values from `source` (and any other source given for it)."""
        if target is not None:
            self.sources.setdefault(target, []).append(source or f"untied:{len(self.sources)}")

    def _find(self, node: str) -> str:
        while self.parents.get(node, node) != node:
            node = self.parents[node]
        return node

    # -- query levels ---------------------------------------------------------------

    def statement(self, node: Any, outer: list[_Scope]) -> str:
        """Walk one query level; return the node of its output distribution column."""
        self.count += 1
        scope = _Scope(self.count)
        scopes = [*outer, scope]
        with_clause = getattr(node, "withClause", None)
        for cte in (with_clause.ctes if with_clause else ()) or ():
            scope.ctes[cte.ctename] = f"cte:{scope.ident}:{cte.ctename}"
        for cte in (with_clause.ctes if with_clause else ()) or ():
            self._cte(cte, scope, scopes)
        if isinstance(node, ast.SelectStmt) and node.op and node.op.name != "SETOP_NONE":
            out = f"set:{scope.ident}"
            self.flow(out, self.statement(node.larg, scopes))
            self.flow(out, self.statement(node.rarg, scopes))
            return out
        self._ranges(node, scope, scopes)
        for qual in self._quals(node):
            self._conjuncts(qual, scopes)
        self._nested(node, scopes)
        return self._output(node, scope, scopes)

    def _cte(self, cte: Any, scope: _Scope, scopes: list[_Scope]) -> None:
        out = self.statement(cte.ctequery, scopes)
        names = [str(n.sval) for n in cte.aliascolnames or ()]
        at = next((i for i, n in enumerate(names) if n in self.columns), None)
        if at is not None:  # WITH t (a, b, ...): the output column by position
            out = self._at(cte.ctequery, at) or out
        self.flow(scope.ctes[cte.ctename], out)

    def _at(self, query: Any, position: int) -> str | None:
        """The node of a query level's output column at `position` (both arms of a UNION)."""
        if isinstance(query, ast.SelectStmt) and query.op and query.op.name != "SETOP_NONE":
            out = f"at:{id(query)}:{position}"
            self.flow(out, self._at(query.larg, position))
            self.flow(out, self._at(query.rarg, position))
            return out
        values = self.positional.get(id(query), [])
        return values[position] if position < len(values) else None

    def _ranges(self, node: Any, scope: _Scope, scopes: list[_Scope]) -> None:
        for item in self._range_items(node):
            self._range(item, scope, scopes)

    def _range_items(self, node: Any) -> Iterator[Any]:
        if isinstance(node, (ast.UpdateStmt, ast.DeleteStmt, ast.InsertStmt)):
            yield node.relation
        yield from getattr(node, "fromClause", None) or ()
        yield from getattr(node, "usingClause", None) or ()

    def _range(self, item: Any, scope: _Scope, scopes: list[_Scope]) -> None:
        if isinstance(item, ast.JoinExpr):
            self._range(item.larg, scope, scopes)
            self._range(item.rarg, scope, scopes)
            if item.quals is not None:
                self._conjuncts(item.quals, scopes)
        elif isinstance(item, ast.RangeVar):
            self._range_var(item, scope, scopes)
        elif isinstance(item, ast.RangeSubselect) and item.alias is not None:
            alias = str(item.alias.aliasname)
            node = f"ref:{scope.ident}:{alias}"
            scope.aliases[alias] = node
            self.flow(node, self.statement(item.subquery, scopes))

    def _range_var(self, item: Any, scope: _Scope, scopes: list[_Scope]) -> None:
        alias = item.alias.aliasname if item.alias else item.relname
        node = f"ref:{scope.ident}:{alias}"
        scope.aliases[alias] = node
        if not item.schemaname:
            cte = next((s.ctes[item.relname] for s in reversed(scopes) if item.relname in s.ctes), None)
            if cte is not None:
                self.flow(node, cte)
                return
        table = self.layout.resolve(item.schemaname, item.relname)
        if table is not None and table in self.column_of:
            self.refs.append(TableRef(table, alias, item.location or 0, node))

    # -- equalities -----------------------------------------------------------------

    def _quals(self, node: Any) -> list[Any]:
        return [q for q in (getattr(node, "whereClause", None),) if q is not None]

    def _conjuncts(self, qual: Any, scopes: list[_Scope]) -> None:
        if isinstance(qual, ast.BoolExpr) and getattr(qual.boolop, "name", "") == "AND_EXPR":
            for arg in qual.args or ():
                self._conjuncts(arg, scopes)
        elif (
            isinstance(qual, ast.A_Expr) and getattr(qual.kind, "name", "") == "AEXPR_OP" and _op(qual) == "="
        ):
            left, right = self._value(qual.lexpr, scopes), self._value(qual.rexpr, scopes)
            if left is not None and right is not None:
                self.union(left, right)

    def _value(self, expr: Any, scopes: list[_Scope]) -> str | None:
        """The node an operand stands for: a parameter or constant, or a reference's
        distribution column; None for anything else."""
        while isinstance(expr, ast.TypeCast):
            expr = expr.arg
        if isinstance(expr, (ast.ParamRef, ast.A_Const)):
            return PINNED
        if isinstance(expr, ast.ColumnRef):
            return self._column(expr, scopes)
        return None

    def _column(self, ref: Any, scopes: list[_Scope]) -> str | None:
        names = [str(f.sval) for f in ref.fields if isinstance(f, ast.String)]
        if not names or names[-1] not in self.columns:
            return None
        if len(names) >= 2:
            return next((s.aliases[names[-2]] for s in reversed(scopes) if names[-2] in s.aliases), None)
        own = scopes[-1].aliases
        return next(iter(own.values())) if len(own) == 1 else None

    # -- what a level returns, and levels nested in expressions -----------------------

    def _output(self, node: Any, scope: _Scope, scopes: list[_Scope]) -> str:
        out = f"out:{scope.ident}"
        targets = returning(node) or getattr(node, "targetList", None) or ()
        values: list[str | None] = []
        for target in targets:
            if not isinstance(target, ast.ResTarget):
                continue
            val: Any = target.val
            value = self._value(val, scopes)
            values.append(value)
            if isinstance(val, ast.ColumnRef) and isinstance((val.fields or ())[-1], ast.A_Star):
                for alias in _star_aliases(val, scope):
                    self.flow(out, scope.aliases.get(alias))
            elif target.name in self.columns or (target.name is None and self._names_column(val)):
                self.flow(out, value)
        self.positional[id(node)] = values
        if isinstance(node, ast.InsertStmt):
            self._inserted(node, scope, scopes)
        return out

    def _names_column(self, expr: Any) -> bool:
        fields: Any = getattr(expr, "fields", None) or ()
        return (
            isinstance(expr, ast.ColumnRef)
            and bool(fields)
            and getattr(fields[-1], "sval", None) in self.columns
        )

    def _inserted(self, node: Any, scope: _Scope, scopes: list[_Scope]) -> None:
        """INSERT INTO t (cols) SELECT ... / VALUES ...: the distribution column's value ties t."""
        relation = node.relation
        target = scope.aliases.get(relation.alias.aliasname if relation.alias else relation.relname)
        names = [c.name for c in node.cols or ()]
        column = next((i for i, n in enumerate(names) if n in self.columns), None)
        select = node.selectStmt
        if column is None or not isinstance(select, ast.SelectStmt):
            return
        if select.valuesLists:
            for row in select.valuesLists:
                items = list(getattr(row, "items", row))
                self.flow(target, self._value(items[column], scopes) if column < len(items) else None)
            return
        self.statement(select, scopes)
        self.flow(target, self._at(select, column))

    def _nested(self, node: Any, scopes: list[_Scope]) -> None:
        """Sub-selects inside expressions (EXISTS, IN, scalar): their own levels."""
        for value in _children(node):
            for sub in _sublinks(value):
                self.statement(sub.subselect, scopes)


def returning(node: Any) -> list[Any]:
    """A modification's RETURNING targets (PostgreSQL 18's parser: returningClause.exprs)."""
    clause = getattr(node, "returningClause", None)
    return list(clause.exprs or ()) if clause is not None else []


def _op(expr: Any) -> str:
    return "".join(str(n.sval) for n in expr.name or () if isinstance(n, ast.String))


def _star_aliases(ref: Any, scope: _Scope) -> list[str]:
    names = [str(f.sval) for f in ref.fields if isinstance(f, ast.String)]
    return names[-1:] if names else list(scope.aliases)


def _children(node: Any) -> Iterator[Any]:
    for name in ("targetList", "whereClause", "returningClause", "havingClause", "sortClause"):
        value = getattr(node, name, None)
        if value is not None:
            yield value
    for item in getattr(node, "fromClause", None) or ():
        if isinstance(item, ast.JoinExpr) and item.quals is not None:
            yield item.quals


def _sublinks(value: Any) -> Iterator[Any]:
    """SubLinks in an expression tree, not descending into their own sub-selects."""
    return (n for n in nodes(value, into_sublinks=False) if isinstance(n, ast.SubLink))
