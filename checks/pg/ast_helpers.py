"""Shared AST helpers for rules: name resolution, "is this relation new", constants,
expression volatility. Rules import these instead of re-deriving them.

Names coming out of pglast are already case-folded the way PostgreSQL folds them
(`Events` -> `events`, `"Events"` stays `Events`), so comparisons are exact.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pglast import ast

from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context

Volatility = Literal["immutable", "stable", "volatile", "unknown"]

# pg_temp is searched before the search_path for relations (not for functions).
TEMP_SCHEMA = "pg_temp"


def resolve(schema: str | None, name: str, context: Context) -> RelationName:
    """Qualify `name` the way PostgreSQL would for a relation in this migration.

    An explicit schema wins. Unqualified, the name resolves to the first schema of
    pg_temp + search_path where this migration created it, else to the first schema
    of the search_path (where an unqualified CREATE would put it).
    """
    if schema:
        return RelationName(schema, name)
    for candidate in (TEMP_SCHEMA, *context.search_path):
        relation = RelationName(candidate, name)
        if relation in context.created_relations:
            return relation
    first = context.search_path[0] if context.search_path else "public"
    return RelationName(first, name)


def relation_name(range_var: ast.RangeVar, context: Context) -> RelationName:
    """The schema-qualified name a RangeVar (`[schema.]table`) refers to."""
    return resolve(range_var.schemaname, range_var.relname or "", context)


def is_new_relation(range_var: ast.RangeVar | None, context: Context) -> bool:
    """True when the RangeVar names a relation created earlier in this migration
    (same schema, same quoting): it is new and empty, so locking it hurts nobody.
    False for None (pglast types every node field as optional)."""
    return range_var is not None and context.is_new(relation_name(range_var, context))


def name_list(names: Sequence[Any] | None) -> list[str]:
    """`(String('a'), String('b'))` -> `['a', 'b']` (DROP objects, type names, funcnames)."""
    return [str(n.sval) for n in names or () if isinstance(n, ast.String)]


def qualified_name(names: Sequence[Any] | None, context: Context) -> RelationName:
    """A dotted name list as DROP INDEX/ TABLE carry it, resolved like `resolve`."""
    parts = name_list(names)
    schema = parts[-2] if len(parts) >= 2 else None
    return resolve(schema, parts[-1], context)


def const_value(node: Any) -> str | int | float | bool | None:
    """The Python value of an A_Const (or a bare value node); None when not a constant."""
    if isinstance(node, ast.A_Const):
        if node.isnull:
            return None
        node = node.val
    if isinstance(node, ast.String):
        return str(node.sval)
    if isinstance(node, ast.Integer):
        return int(node.ival or 0)
    if isinstance(node, ast.Float):
        return float(node.fval or 0)
    if isinstance(node, ast.Boolean):
        return bool(node.boolval)
    if isinstance(node, ast.TypeCast):
        return const_value(node.arg)
    return None


def option_enabled(options: Sequence[Any] | None, name: str) -> bool:
    """True when a list of DefElem options turns the boolean option `name` on, as
    PostgreSQL's defGetBoolean reads it: `REINDEX (CONCURRENTLY)`, `VACUUM (FULL true)`,
    `(FULL on)` and `(FULL 1)` are on; `(CONCURRENTLY false)`, `off` and `0` are off
    (any other value is an error, so the statement does nothing)."""
    for option in options or ():
        if isinstance(option, ast.DefElem) and option.defname == name:
            return option.arg is None or str(const_value(option.arg)).lower() in ("true", "on", "1")
    return False


def iter_nodes(node: Any) -> Iterator[ast.Node]:
    """Every pglast node inside `node` (itself included), depth-first, in field order.

    Many rules walk the same statement; the flattened walk of the last few hundred nodes
    asked for is kept, so each statement is traversed once however many rules ask.
    """
    key = id(node)
    cached = _WALKS.get(key)
    if cached is None or cached[0] is not node:
        cached = (node, tuple(_walk(node)))
        _WALKS[key] = cached
        if len(_WALKS) > _WALK_CACHE_SIZE:
            _WALKS.popitem(last=False)
    return iter(cached[1])


_WALK_CACHE_SIZE = 512
# id -> (node, its walk); keeping the node alive keeps its id from being reused.
_WALKS: OrderedDict[int, tuple[Any, tuple[ast.Node, ...]]] = OrderedDict()


def _walk(node: Any) -> list[ast.Node]:
    found: list[ast.Node] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            found.append(item)
            kind = type(item)
            for name in _CHILD_FIELDS.get(kind) or _child_fields(kind):  # last first: popped in order
                child = getattr(item, name)
                if child is not None:
                    stack.append(child)
        elif isinstance(item, (tuple, list)):
            stack.extend(c for c in reversed(item) if isinstance(c, (ast.Node, tuple, list)))
    return found


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that can hold nodes (pointers, lists), last field first:
    skipping the scalar ones (flags, names, locations) halves the walk."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        slots: dict[str, Any] = getattr(kind, "__slots__", {})
        names = [name for name, info in slots.items() if _may_hold_nodes(info.py_type)]
        fields = _CHILD_FIELDS[kind] = tuple(reversed(names))
    return fields


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _may_hold_nodes(py_type: type | tuple[type, ...]) -> bool:
    types = py_type if isinstance(py_type, tuple) else (py_type,)
    return any(t in (tuple, list) or issubclass(t, ast.Node) for t in types if isinstance(t, type))


def function_name(call: ast.FuncCall) -> str:
    """The unqualified, folded name of a function call (`pg_catalog.now()` -> `now`)."""
    parts = name_list(call.funcname)
    return parts[-1] if parts else ""


# Built-ins whose volatility matters for column defaults; user functions are "unknown".
VOLATILE_FUNCTIONS = frozenset(
    {
        "random",
        "random_normal",
        "gen_random_uuid",
        "uuid_generate_v1",
        "uuid_generate_v1mc",
        "uuid_generate_v4",
        "uuid_generate_v7",
        "uuidv4",
        "uuidv7",
        "clock_timestamp",
        "timeofday",
        "nextval",
        "setval",
        "txid_current",
        "pg_current_xact_id",
        "gen_random_bytes",
        "setseed",
    }
)
STABLE_FUNCTIONS = frozenset(
    {
        "now",
        "statement_timestamp",
        "transaction_timestamp",
        "current_setting",
        "to_char",
        "current_database",
        "current_schema",
        "current_user",
        "session_user",
        "to_timestamp",
    }
)
IMMUTABLE_FUNCTIONS = frozenset(
    {
        "lower",
        "upper",
        "length",
        "coalesce",
        "abs",
        "md5",
        "jsonb_build_object",
        "json_build_object",
        "jsonb_build_array",
        "array_length",
        "concat",
        "nullif",
        "greatest",
        "least",
        "make_interval",
        "replace",
        "substr",
        "trim",
    }
)


def expression_volatility(expr: Any) -> Volatility:
    """A guess at an expression's volatility, the most volatile part winning.

    Constants, casts of constants and CURRENT_TIMESTAMP-style SQL value functions are
    known; user-defined functions are "unknown" (rules should stay quiet on unknown
    unless they must be conservative). `DEFAULT now()` is stable: no table rewrite on 11+.
    """
    rank: dict[Volatility, int] = {"immutable": 0, "stable": 1, "unknown": 2, "volatile": 3}
    worst: Volatility = "immutable"
    for node in iter_nodes(expr):
        found = _node_volatility(node)
        if rank[found] > rank[worst]:
            worst = found
    return worst


def _node_volatility(node: ast.Node) -> Volatility:
    if isinstance(node, ast.SQLValueFunction):
        return "stable"
    if isinstance(node, (ast.SubLink, ast.ColumnRef)):
        return "unknown"
    if isinstance(node, ast.FuncCall):
        name = function_name(node)
        if name in VOLATILE_FUNCTIONS:
            return "volatile"
        if name in STABLE_FUNCTIONS:
            return "stable"
        return "immutable" if name in IMMUTABLE_FUNCTIONS else "unknown"
    return "immutable"
