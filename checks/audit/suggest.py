"""The index that would serve a failing path, read from the query, proven with hypopg.

From the path's SQL (pglast AST) for the failing table: columns compared for equality
with a parameter or another table come first; then the ORDER BY columns with their
direction (so `ORDER BY ... LIMIT` stops early: the queue and append-log shapes), or
else the first range column; comparisons with constants (`status = 'queued'`,
`delivered_at IS NULL`) become the partial index's WHERE, so the index holds only the
hot subset. General advisors put the constant column first and the sort column last
without DESC; this keeps the order the query reads.

With hypopg (`server.has_extension("hypopg")`) the suggestion is created as a
hypothetical index and the path is re-planned: the suggestion is verified when the
planner picks it, and the cost drop is reported. Otherwise it stays a reasoned
suggestion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pglast
import psycopg
from pglast import ast, enums
from pglast.stream import RawStream

from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.paths import numbered
from agentddl.checks.audit.plan import Catalog, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.generator.model.blocks import quote

RANGE_OPS = ("<", "<=", ">", ">=")


@dataclass
class IndexShape:
    equality: list[str] = field(default_factory=list)
    order: list[tuple[str, bool]] = field(default_factory=list)  # (column, descending)
    range: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # predicates on constants, alias stripped

    @property
    def key(self) -> list[str]:
        key = list(dict.fromkeys(self.equality))
        tail = [f"{c} DESC" if desc else c for c, desc in self.order if c not in key]
        if not tail and self.range:
            tail = [self.range[0]] if self.range[0] not in key else []
        return key + tail


@dataclass(frozen=True)
class Suggestion:
    path: str
    table: str
    ddl: str
    reason: str
    verified: bool | None  # True: hypopg shows the planner uses it; None: not checked
    cost_before: float | None = None
    cost_after: float | None = None
    node_after: str | None = None


def index_shape(statement: str, table: str) -> IndexShape | None:
    """What the query asks of `table`, or None if it does not read it."""
    try:
        tree = pglast.parse_sql(numbered(statement))
    except pglast.parser.ParseError:
        return None
    shape, found = IndexShape(), False
    for node in _nodes(tree[0].stmt):
        if isinstance(node, ast.SelectStmt | ast.UpdateStmt | ast.DeleteStmt):
            for alias in _aliases_of(node, table):
                found = True
                _read_where(getattr(node, "whereClause", None), alias, shape)
                for sort in getattr(node, "sortClause", None) or ():
                    column = _column(sort.node, alias)
                    if column:
                        shape.order.append((column, sort.sortby_dir == enums.SortByDir.SORTBY_DESC))
    return shape if found and shape.key else None


def _nodes(node: Any) -> Iterator[Any]:
    if isinstance(node, list | tuple):
        for item in node:
            yield from _nodes(item)
    elif isinstance(node, ast.Node):
        yield node
        for slot in type(node).__slots__:  # type: ignore[attr-defined]
            yield from _nodes(getattr(node, slot, None))


def _aliases_of(statement: Any, table: str) -> list[str]:
    sources = list(getattr(statement, "fromClause", None) or ())
    if isinstance(getattr(statement, "relation", None), ast.RangeVar):
        sources.append(statement.relation)
    return [
        str(rv.alias.aliasname if rv.alias else rv.relname)
        for source in sources
        for rv in _nodes(source)
        if isinstance(rv, ast.RangeVar) and rv.relname == table
    ]


def _read_where(where: Any, alias: str, shape: IndexShape) -> None:
    terms = (
        where.args
        if isinstance(where, ast.BoolExpr) and where.boolop == enums.BoolExprType.AND_EXPR
        else [where]
    )
    for term in terms or ():
        if isinstance(term, ast.NullTest) and _column(term.arg, alias):
            shape.partial.append(_strip(term, alias))
        elif isinstance(term, ast.A_Expr) and (column := _column(term.lexpr, alias)):
            op = term.name[0].sval if term.name else ""
            constant = _constant(term.rexpr)
            if (term.kind == enums.A_Expr_Kind.AEXPR_IN and constant) or (op == "=" and constant):
                shape.partial.append(_strip(term, alias))
            elif op == "=":
                shape.equality.append(column)
            elif op in RANGE_OPS or term.kind == enums.A_Expr_Kind.AEXPR_BETWEEN:
                shape.range.append(column)


def _column(node: Any, alias: str) -> str | None:
    if isinstance(node, ast.TypeCast):
        node = node.arg
    if not isinstance(node, ast.ColumnRef):
        return None
    names = [f.sval for f in node.fields or () if isinstance(f, ast.String)]
    if len(names) == 2 and names[0] == alias:
        return names[1]
    return names[0] if len(names) == 1 else None


def _constant(node: Any) -> bool:
    if isinstance(node, list | tuple):
        return all(_constant(n) for n in node)
    if isinstance(node, ast.TypeCast):
        return _constant(node.arg)
    return isinstance(node, ast.A_Const)


def _strip(node: Any, alias: str) -> str:
    return re.sub(rf"\b{re.escape(alias)}\.", "", RawStream()(node))


def suggest(
    conn: psycopg.Connection[Any], planner: Planner, result: PathResult, catalog: Catalog, hypopg: bool
) -> Suggestion | None:
    """The index for the path's first failing table, verified with hypopg when possible."""
    table = _failing_table(result) or result.path.table
    shape = index_shape(result.path.sql, table) if table else None
    if table is None or shape is None:
        return None
    schema = planner.model.schema
    where = f" WHERE {' AND '.join(shape.partial)}" if shape.partial else ""
    columns = ", ".join(quote(c.split()[0]) + (" DESC" if c.endswith(" DESC") else "") for c in shape.key)

    def on(target: str) -> str:
        return f"ON {quote(schema)}.{quote(target)} ({columns}){where}"

    partitioned = table in catalog.partitions
    # a partitioned parent takes a plain CREATE INDEX (each partition can be built
    # CONCURRENTLY first and attached); hypopg indexes each leaf partition instead
    ddl = f"CREATE INDEX {'' if partitioned else 'CONCURRENTLY '}{on(table)}"
    base = Suggestion(result.path.name, table, ddl, _reason(shape), None)
    if not hypopg or result.plan is None:
        return base
    targets = catalog.leaves.get(table, ()) if partitioned else (table,)
    return _verify(conn, planner, result, catalog, base, [on(t) for t in targets])


def _failing_table(result: PathResult) -> str | None:
    for finding in result.findings:
        if finding.is_error and result.plan:
            for scan in result.plan.scans:
                if scan.node == "Seq Scan" and scan.table in finding.message:
                    return scan.table
    return None


def _reason(shape: IndexShape) -> str:
    parts = []
    if shape.equality:
        parts.append(f"equality on {', '.join(dict.fromkeys(shape.equality))}")
    if shape.order:
        parts.append("then the ORDER BY " + ", ".join(f"{c}{' DESC' if d else ''}" for c, d in shape.order))
    elif shape.range:
        parts.append(f"then the range on {shape.range[0]}")
    if shape.partial:
        parts.append(f"partial on {' AND '.join(shape.partial)} (only the hot subset)")
    return "; ".join(parts)


def _verify(
    conn: psycopg.Connection[Any],
    planner: Planner,
    result: PathResult,
    catalog: Catalog,
    base: Suggestion,
    bodies: list[str],
) -> Suggestion:
    path = result.path
    with conn.transaction(force_rollback=True):
        conn.execute("CREATE EXTENSION IF NOT EXISTS hypopg")
        names = set()
        for body in bodies:
            row = conn.execute("SELECT indexname FROM hypopg_create_index(%s)", [f"CREATE INDEX {body}"])
            names.add(str(row.fetchone()[0]))  # type: ignore[index]
        try:
            tenant = planner.model.profile.tenancy.column
            request = ExplainRequest(path.sql, result.params, path.role, result.params.get(tenant or ""))
            plan = summarize(explain(conn, request), catalog, planner.version)
        except ExplainError:
            return base
        finally:
            conn.execute("SELECT hypopg_reset()")
    assert result.plan is not None
    used = any(s.index in names for s in plan.scans)
    return Suggestion(
        base.path,
        base.table,
        base.ddl,
        base.reason,
        used,
        result.plan.cost,
        plan.cost,
        plan.main_node(base.table) if used else None,
    )
