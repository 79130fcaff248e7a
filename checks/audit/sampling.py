"""Values for the parameters nobody gave an example for, sampled from the data.

A parameter compared with a column (`j.queue = :queue`, `created_at > $1`,
`metadata @> :filter`, `id = ANY(:ids)`) gets a value of that column from the database
the audit plans on. From `pg_stats` where it tells the distribution: for a range, the
histogram bound that keeps ~2% of the rows on its side; for equality on a column whose
values all are among its most common ones, the least common of them (a queue's hot
subset, `status = 'todo'`, not the 97% that are done). Otherwise from the rows (a
TABLESAMPLE of a few thousand: a read of a few pages, under ACCESS SHARE; pages are
clustered, so not for quantiles): for equality the rarest value of the sample (a unique
key: any), for LIKE a prefix of a value, for jsonb containment a whole sampled document
(as selective as a lookup by metadata gets). A LIMIT is 50, an OFFSET 0. Values from
pg_stats are text, typed by the server from the comparison. A parameter with no such
context has no sampled value: on PostgreSQL 16+ the path is judged by its generic plan,
before 16 it needs an example.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pglast
import psycopg
from pglast import ast, enums
from psycopg import sql
from psycopg.types.json import Json, Jsonb

from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import numbered, placeholder_names
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.shape import nodes

SAMPLE_ROWS = 2000
LIMIT_VALUE = 50
RANGE_SHARE = 0.02  # a range parameter keeps about this share of the rows on its side
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Context:
    """How a parameter is used: compared with `table.column` by `op`."""

    op: str  # = < > like contains has_key any between_low between_high limit offset
    table: str | None = None
    column: str | None = None


@dataclass
class Sampler:
    """Column samples of one database, read once per column."""

    conn: psycopg.Connection[Any]
    catalog: Catalog
    _samples: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    _stats: dict[tuple[str, str], tuple[list[str], list[str], list[float]]] = field(default_factory=dict)

    def values(self, path: AuditPath, given: dict[str, object]) -> dict[str, object]:
        """A value for each of the path's parameters not in `given` that has a context."""
        contexts = param_contexts(path.sql, self.catalog)
        found: dict[str, object] = {}
        for name in path.params:
            context = contexts.get(name)
            if name in given or context is None:
                continue
            value = self._value(context)
            if value is not _NONE:
                found[name] = value
        return found

    def _value(self, context: Context) -> object:
        if context.op == "limit":
            return LIMIT_VALUE
        if context.op == "offset":
            return 0
        if context.table is None or context.column is None:
            return _NONE
        from_stats = self._from_stats(context)
        if from_stats is not None:
            return from_stats
        values = self._sample(context.table, context.column)
        if not values:
            return _NONE
        return _pick(values, context, self.catalog.types.get((context.table, context.column), ""))

    def _from_stats(self, context: Context) -> str | None:
        """A histogram bound for a range, the least common value for equality on a
        column whose values all are common ones (None: pg_stats does not tell)."""
        assert context.table is not None and context.column is not None
        key = (context.table, context.column)
        if key not in self._stats:
            self._stats[key] = _read_stats(self.conn, self.catalog.schema, *key)
        bounds, common, freqs = self._stats[key]
        share = _SHARES.get(context.op)
        if share is not None and bounds:
            return str(bounds[round(share * (len(bounds) - 1))])
        if context.op == "=" and common and not bounds and freqs:
            return str(common[min(range(len(common)), key=lambda i: (freqs[i], i))])
        return None

    def _sample(self, table: str, column: str) -> list[Any]:
        key = (table, column)
        if key not in self._samples:
            self._samples[key] = _read_sample(self.conn, self.catalog, table, column)
        return self._samples[key]


_NONE = object()
_SHARES = {
    "<": RANGE_SHARE,
    "<=": RANGE_SHARE,
    ">": 1 - RANGE_SHARE,
    ">=": 1 - RANGE_SHARE,
    "between_low": 0.49,
    "between_high": 0.51,
}
_STATS = """
SELECT histogram_bounds::text::text[], most_common_vals::text::text[], most_common_freqs
FROM pg_stats WHERE schemaname = %s AND tablename = %s AND attname = %s
ORDER BY inherited DESC LIMIT 1
"""


def _read_stats(
    conn: psycopg.Connection[Any], schema: str, table: str, column: str
) -> tuple[list[str], list[str], list[float]]:
    """(histogram bounds, most common values, their frequencies) as text; empty when
    the column has none or its values do not read as a text array."""
    try:
        with conn.transaction(force_rollback=True):
            row = conn.execute(_STATS, [schema, table, column]).fetchone()
    except psycopg.Error:
        return [], [], []
    if row is None:
        return [], [], []
    return list(row[0] or []), list(row[1] or []), [float(f) for f in row[2] or []]


def _read_sample(conn: psycopg.Connection[Any], catalog: Catalog, table: str, column: str) -> list[Any]:
    """Up to SAMPLE_ROWS non-null values: a TABLESAMPLE of the pages that hold about
    that many rows, else (a small or never analyzed table) the first rows."""
    rows = catalog.rows.get(table, 0.0)
    percent = min(100.0, max(0.01, 100.0 * SAMPLE_ROWS / rows)) if rows > 0 else 100.0
    target = sql.SQL("{}.{}").format(sql.Identifier(catalog.schema), sql.Identifier(table))
    col = sql.Identifier(column)
    # the comment keeps these reads out of --from-stats' workload
    sampled = sql.SQL(
        "/* agentddl */ SELECT {c} FROM {t} TABLESAMPLE SYSTEM (%s) REPEATABLE (7)"
        " WHERE {c} IS NOT NULL LIMIT %s"
    ).format(c=col, t=target)
    first = sql.SQL("/* agentddl */ SELECT {c} FROM {t} WHERE {c} IS NOT NULL LIMIT %s").format(
        c=col, t=target
    )
    try:
        with conn.transaction(force_rollback=True):
            values = [r[0] for r in conn.execute(sampled, [percent, SAMPLE_ROWS]).fetchall()]
            if not values:
                values = [r[0] for r in conn.execute(first, [SAMPLE_ROWS]).fetchall()]
    except psycopg.Error:
        return []  # a column we may not read: no sampled value
    return values


def _pick(values: list[Any], context: Context, type_name: str) -> object:
    ordered = sorted(values, key=_order)
    if context.op in ("<", "<="):
        value = ordered[int(RANGE_SHARE * (len(ordered) - 1))]
    elif context.op in (">", ">="):
        value = ordered[int((1 - RANGE_SHARE) * (len(ordered) - 1))]
    elif context.op in ("between_low", "between_high"):
        value = ordered[int((0.49 if context.op == "between_low" else 0.51) * (len(ordered) - 1))]
    else:
        value = _rarest(ordered)
    return _shaped(value, context.op, type_name)


def _rarest(ordered: list[Any]) -> Any:
    """The least frequent value (ties: the middle one of them in sort order)."""
    counts = Counter(_order(v) for v in ordered)
    fewest = min(counts.values())
    rare = [v for v in ordered if counts[_order(v)] == fewest]
    return rare[len(rare) // 2]


def _order(value: Any) -> Any:
    return (0, value) if isinstance(value, int | float | str) else (1, repr(value))


def _shaped(value: Any, op: str, type_name: str) -> object:
    if op == "like":
        text = str(value)
        return text[: max(1, len(text) // 2)] + "%"
    if op == "has_key" and isinstance(value, dict) and value:
        return sorted(value)[0]
    if op == "contains" and isinstance(value, list) and type_name.startswith("_"):
        return value[:1]
    if op == "any":
        return [value]
    if type_name == "jsonb":
        return Jsonb(value)
    if type_name == "json":
        return Json(value)
    return value


def param_contexts(statement: str, catalog: Catalog) -> dict[str, Context]:
    """Parameter name -> how the statement uses it (the first use that tells)."""
    names = placeholder_names(statement)
    try:
        tree = pglast.parse_sql(numbered(statement))
    except pglast.parser.ParseError:
        return {}
    tables = _tables(tree, catalog)
    found: dict[int, Context] = {}
    for node in nodes(tree):
        for number, context in _contexts(node, tables, catalog):
            found.setdefault(number, context)
    return {names[n - 1]: c for n, c in found.items() if 0 < n <= len(names)}


def _tables(tree: Any, catalog: Catalog) -> dict[str, str]:
    """Alias (or name) -> table, for the catalog's tables the statement names."""
    found: dict[str, str] = {}
    for rv in (n for n in nodes(tree) if isinstance(n, ast.RangeVar)):
        if rv.relname in catalog.columns and (rv.schemaname in (None, catalog.schema)):
            found.setdefault(str(rv.alias.aliasname if rv.alias else rv.relname), str(rv.relname))
    return found


def _contexts(node: Any, tables: dict[str, str], catalog: Catalog) -> list[tuple[int, Context]]:
    if isinstance(node, ast.SelectStmt):
        return [
            (p, Context(op))
            for slot, op in (("limitCount", "limit"), ("limitOffset", "offset"))
            if (p := _param(getattr(node, slot))) is not None
        ]
    if isinstance(node, ast.A_Expr):
        return _comparison(node, tables, catalog)
    return []


def _comparison(node: ast.A_Expr, tables: dict[str, str], catalog: Catalog) -> list[tuple[int, Context]]:
    op = node.name[-1].sval if node.name else ""
    left, right = node.lexpr, node.rexpr
    column = _column(left, tables, catalog)
    if column is None and op in (*_FLIPPED, "=", "<>"):
        column, right = _column(right, tables, catalog), left
        op = _FLIPPED.get(op, op)
    if column is None:
        return []
    kind = node.kind
    if kind == enums.A_Expr_Kind.AEXPR_BETWEEN and isinstance(right, list | tuple) and len(right) == 2:
        ends = [(_param(right[0]), "between_low"), (_param(right[1]), "between_high")]
        return [(p, Context(o, *column)) for p, o in ends if p is not None]
    if kind == enums.A_Expr_Kind.AEXPR_IN and isinstance(right, list | tuple):
        return [(p, Context("=", *column)) for item in right if (p := _param(item)) is not None]
    number = _param(right)
    if number is None:
        return []
    if kind == enums.A_Expr_Kind.AEXPR_OP_ANY:
        return [(number, Context("any", *column))]
    if kind == enums.A_Expr_Kind.AEXPR_LIKE:
        return [(number, Context("like", *column))]
    named_ops = {"@>": "contains", "?": "has_key", "=": "=", "<>": "="}
    return [(number, Context(named_ops.get(op, op), *column))]


def _param(node: Any) -> int | None:
    while isinstance(node, ast.TypeCast):
        node = node.arg
    return int(node.number or 0) if isinstance(node, ast.ParamRef) else None


def _column(node: Any, tables: dict[str, str], catalog: Catalog) -> tuple[str, str] | None:
    """(table, column) of a plain column reference to one of the statement's tables."""
    if not isinstance(node, ast.ColumnRef):
        return None
    names = [f.sval for f in node.fields or () if isinstance(f, ast.String)]
    if len(names) == 2 and names[0] in tables:
        table = tables[names[0]]
        return (table, str(names[1])) if names[1] in catalog.columns.get(table, ()) else None
    if len(names) == 1:
        owners = [t for t in dict.fromkeys(tables.values()) if names[0] in catalog.columns.get(t, ())]
        return (owners[0], str(names[0])) if owners else None
    return None
