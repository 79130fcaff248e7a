"""ADS105 unsupported-function-in-modification."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pglast import ast

from agentddl.checks.citus.routing import returning
from agentddl.checks.citus.types import CitusContext, Rule
from agentddl.checks.citus.walk import nodes
from agentddl.checks.core.findings import Finding
from agentddl.checks.pg.ast_helpers import STABLE_FUNCTIONS, VOLATILE_FUNCTIONS

WHY = {
    "volatile-where": "a VOLATILE function in the WHERE clause of a modification",
    "stable-with-columns": "a STABLE function applied to column references in an UPDATE",
    "case-coalesce": "a non-IMMUTABLE function inside CASE or COALESCE in a modification",
    "returning": "a non-IMMUTABLE function in RETURNING",
}


class UnsupportedFunctionInModification(Rule):
    """A function Citus refuses inside an UPDATE, DELETE or INSERT of a distributed table.

    ## What it does
    In every modification of every named query (data-modifying CTEs included), reports
    a VOLATILE function in a WHERE clause (`pg_try_advisory_xact_lock`, `random()`), a
    STABLE function or timestamptz arithmetic applied to column references in an UPDATE
    (`now() + r.attempt_count * interval '1 second'`), a non-IMMUTABLE function inside
    CASE or COALESCE (`CASE WHEN done THEN now() END`), and a non-IMMUTABLE function in
    RETURNING. Volatility is known by name for common functions (others are taken as
    IMMUTABLE), and `+`/`-` over `now()` and a column counts as timestamptz arithmetic.

    ## Why is this bad?
    Citus evaluates a modification's STABLE functions on the coordinator before it sends
    the statement to a shard, so that every placement stores the same value; it cannot
    do that for a function whose value depends on the row, or that must run once per row,
    or that sits in a branch it cannot decide. It refuses the statement ("functions used
    in the WHERE clause of modification queries on distributed tables must not be
    VOLATILE", "STABLE functions used in UPDATE queries cannot be called with column
    references", "non-IMMUTABLE functions are not allowed in CASE or COALESCE
    statements"). Plain PostgreSQL runs it, so no single-server test notices.

    ## Example
    ```sql
    UPDATE agent.outbox AS m
    SET dead_at = CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END
    WHERE m.tenant_id = :tenant_id AND m.message_id = :message_id;
    ```

    ## Use instead
    ```sql
    WITH due AS (
        SELECT m.tenant_id, m.message_id,
            CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END AS dead_at
        FROM agent.outbox AS m
        WHERE m.tenant_id = :tenant_id AND m.message_id = :message_id
        FOR UPDATE
    )
    UPDATE agent.outbox AS m SET dead_at = d.dead_at
    FROM due AS d
    WHERE m.tenant_id = :tenant_id AND m.message_id = d.message_id;
    ```
    (the value is computed in a SELECT, which Citus sends to the shard as it is), or pass
    the time as a parameter.

    ## References
    - https://learn.microsoft.com/azure/cosmos-db/postgresql/reference-limits (General)
    - https://docs.citusdata.com/en/stable/develop/reference_dml.html
    """

    code = "ADS105"
    name = "unsupported-function-in-modification"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        columns, layout = context.columns, context.layout

        def distributed(relation: Any) -> bool:
            return layout.resolve(relation.schemaname, str(relation.relname)) in columns

        for query_file in context.query_files:
            for query in query_file.queries:
                for problem in modification_problems(query.statement, distributed):
                    line, column = query_file.source.position(problem.location)
                    yield self.finding(
                        f"{query.name}: {problem.function}: {WHY[problem.problem]}, which Citus refuses "
                        "on a distributed table.",
                        "compute the value in a SELECT (a CTE) and assign it, or pass it as a parameter",
                        file=query_file.source.path,
                        line=line,
                        column=column,
                    )


# Functions Citus will not run inside a modification of a distributed table (its
# documented limits): a VOLATILE function in the WHERE clause, a STABLE function (or
# operator) applied to column references, a non-IMMUTABLE function inside CASE or
# COALESCE, a non-IMMUTABLE function in RETURNING. Citus evaluates STABLE functions
# without column arguments (now()) on the coordinator; the others it cannot.
#
# Volatility is known by name for the functions such queries use; an operator's is not
# known without types, so `+`/`-` over a non-IMMUTABLE call and a column reference is
# taken as timestamptz arithmetic (STABLE: it depends on the time zone).

# pg.ast_helpers' built-ins (the lint rules' table), and what Citus's rules add: functions
# that change session or lock state are as volatile as random() to its planner.
VOLATILE = VOLATILE_FUNCTIONS | {
    "set_config",
    "pg_sleep",
    "pg_try_advisory_xact_lock",
    "pg_advisory_xact_lock",
    "pg_try_advisory_lock",
    "pg_advisory_lock",
    "pg_try_advisory_xact_lock_shared",
}
STABLE = STABLE_FUNCTIONS | {"age", "date_trunc", "to_timestamp_tz"}


Problem = Literal["volatile-where", "stable-with-columns", "case-coalesce", "returning"]


@dataclass(frozen=True)
class Unsupported:
    problem: Problem
    function: str
    location: int


def modification_problems(
    statement: Any, distributed: Callable[[ast.RangeVar], bool]
) -> Iterator[Unsupported]:
    """Every modification of a distributed table in the statement (its CTEs included):
    what Citus refuses in it."""
    for node in _modifications(statement):
        if not distributed(node.relation):
            continue
        where = getattr(node, "whereClause", None)
        for call in _calls(where):
            if _volatility(call) == "v":
                yield Unsupported("volatile-where", _name(call), _location(call))
        sets = _assignments(node)
        for expr in [*(t.val for t in sets or ()), where]:
            yield from _stable_with_columns(expr)
            yield from _in_case(expr)
        for target in returning(node):
            for call in _calls(target.val):
                if _volatility(call) != "i":
                    yield Unsupported("returning", _name(call), _location(call))


def _modifications(statement: Any) -> Iterator[Any]:
    return (n for n in nodes(statement) if isinstance(n, (ast.UpdateStmt, ast.DeleteStmt, ast.InsertStmt)))


def _assignments(node: Any) -> Any:
    """An UPDATE's SET list, or an INSERT's ON CONFLICT DO UPDATE SET list."""
    if isinstance(node, ast.UpdateStmt):
        return node.targetList or ()
    conflict = getattr(node, "onConflictClause", None)
    return (conflict.targetList or ()) if conflict is not None else ()


def _stable_with_columns(expr: Any) -> Iterator[Unsupported]:
    for node in _walk(expr, into_sublinks=False):
        if isinstance(node, ast.FuncCall) and _volatility(node) == "s" and _has_columns(node.args):
            yield Unsupported("stable-with-columns", _name(node), _location(node))
        elif isinstance(node, ast.A_Expr) and _operator(node) in ("+", "-"):
            calls = [c for c in _calls(node) if _volatility(c) != "i"]
            if calls and _has_columns(node):
                yield Unsupported(
                    "stable-with-columns", f"{_name(calls[0])}() {_operator(node)}", _location(node)
                )


def _in_case(expr: Any) -> Iterator[Unsupported]:
    seen: set[int] = set()
    for node in _walk(expr, into_sublinks=False):
        if isinstance(node, (ast.CaseExpr, ast.CoalesceExpr)):
            for call in _calls(node):
                if _volatility(call) != "i" and _location(call) not in seen:
                    seen.add(_location(call))
                    yield Unsupported("case-coalesce", _name(call), _location(call))


def _calls(expr: Any) -> list[Any]:
    return [
        n for n in _walk(expr, into_sublinks=False) if isinstance(n, (ast.FuncCall, ast.SQLValueFunction))
    ]


def _has_columns(expr: Any) -> bool:
    return any(isinstance(n, ast.ColumnRef) for n in _walk(expr, into_sublinks=False))


def _walk(expr: Any, *, into_sublinks: bool) -> Iterator[Any]:
    return nodes(expr, into_sublinks=into_sublinks)


def _volatility(call: Any) -> str:
    """'v', 's' or 'i'; a function not in the tables counts as IMMUTABLE (unknown: no finding)."""
    if isinstance(call, ast.SQLValueFunction):
        return "s"  # CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_USER, ...
    name = _name(call)
    return "v" if name in VOLATILE else "s" if name in STABLE else "i"


def _name(call: Any) -> str:
    if isinstance(call, ast.SQLValueFunction):
        return str(getattr(call.op, "name", "")).removeprefix("SVFOP_").lower()
    return str(call.funcname[-1].sval)


def _operator(expr: Any) -> str:
    return "".join(str(n.sval) for n in expr.name or () if isinstance(n, ast.String))


def _location(node: Any) -> int:
    return int(getattr(node, "location", None) or 0)
