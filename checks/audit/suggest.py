"""The index that would serve a failing path (its key read from the query by
`shape.index_shapes`: the first the table lacks), proven with hypopg.

With hypopg (`server.has_extension("hypopg")`) the suggestion is created as a
hypothetical index and the path is re-planned: the suggestion is verified when the
planner picks it and the new plan passes the same judge (an index the planner takes
but still sorts or filters through is not a fix); the cost drop is reported.
Otherwise it stays a reasoned suggestion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.judge import PLAN_ERRORS, judge
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.audit.shape import IndexShape, KeyPart, index_shapes
from agentddl.generator.model.blocks import quote


@dataclass(frozen=True)
class Suggestion:
    path: str
    table: str
    ddl: str
    reason: str
    verified: bool | None  # True: hypopg shows the planner uses it and the plan passes; None: not checked
    cost_before: float | None = None
    cost_after: float | None = None
    node_after: str | None = None
    remaining: str | None = None  # used, but the plan still fails: the first finding


def suggest(
    conn: psycopg.Connection[Any], planner: Planner, result: PathResult, catalog: Catalog, hypopg: bool
) -> Suggestion | None:
    """The index for the path's first failing table, verified with hypopg when possible.
    None when no new index is the fix: the path could not be planned, lost its declared
    index (recreate that one), reads every partition (compare the key bare), or the
    index the query asks for already exists."""
    if result.plan is None or not any(f.code in PLAN_ERRORS for f in result.findings):
        return None
    table = _failing_table(result) or result.path.table
    shapes = index_shapes(result.path.sql, table) if table else []
    shape = next((s for s in shapes if not _exists(s, table or "", catalog)), None)
    if table is None or shape is None:
        return None
    partitioned = table in catalog.partitions
    # a partitioned parent takes a plain CREATE INDEX (each partition can be built
    # CONCURRENTLY first and attached); hypopg indexes each leaf partition instead
    create = "CREATE INDEX " if partitioned else "CREATE INDEX CONCURRENTLY "
    indexes = [arm for arm in shape.arms if not _exists(arm, table, catalog)] or [shape]
    ddl = "; ".join(create + _on(planner.model.schema, table, i) for i in indexes)
    base = Suggestion(result.path.name, table, ddl, _reason(shape), None)
    if not hypopg:
        return base
    targets = catalog.leaves.get(table, ()) if partitioned else (table,)
    bodies = [_on(planner.model.schema, t, i) for i in indexes for t in targets]
    return _verify(conn, planner, result, catalog, base, bodies)


def _on(schema: str, table: str, shape: IndexShape) -> str:
    """`ON schema.table (key) [WHERE partial]`: the body of CREATE INDEX."""
    columns = ", ".join(_key_sql(part) for part in shape.parts)
    where = f" WHERE {' AND '.join(shape.partial)}" if shape.partial else ""
    return f"ON {quote(schema)}.{quote(table)} ({columns}){where}"


def _failing_table(result: PathResult) -> str | None:
    """The table an error finding names (a sequential scan's first): whole words, so
    `runs` is not found in a path named `run_without_tenant`."""
    scans = sorted(result.plan.scans if result.plan else (), key=lambda s: s.node != "Seq Scan")
    for finding in result.findings:
        for scan in scans if finding.is_error else ():
            if re.search(rf"\b{re.escape(scan.table)}\b", finding.message):
                return scan.table
    return None


def _exists(shape: IndexShape, table: str, catalog: Catalog) -> bool:
    """An index on the table already leads with exactly these plain columns (a partial
    copy of it would only be smaller); for an OR, with every arm's."""
    if shape.arms:
        return all(_exists(arm, table, catalog) for arm in shape.arms)
    if any(p.suffix or p.target.startswith("(") for p in shape.parts):
        return False
    key = tuple(p.target for p in shape.parts)
    return any(
        catalog.index_table.get(index) == table and columns[: len(key)] == key
        for index, columns in catalog.index_columns.items()
    )


def _key_sql(part: KeyPart) -> str:
    target = part.target if part.target.startswith("(") else quote(part.target)
    return f"{target} {part.suffix}".rstrip()


def _reason(shape: IndexShape) -> str:
    if shape.arms:
        each = " | ".join(_reason(arm) for arm in shape.arms)
        return f"one index per arm of the OR (the planner combines them in a BitmapOr): {each}"
    parts = []
    if shape.equality:
        parts.append(f"equality on {', '.join(dict.fromkeys(p.target for p in shape.equality))}")
    if shape.order:
        parts.append("then the ORDER BY " + ", ".join(str(p) for p in shape.order))
    elif shape.range:
        first = shape.range[0]
        like = first.suffix == "text_pattern_ops"  # the LIKE prefix's operator class, any collation
        parts.append(f"then the {'LIKE prefix' if like else 'range'} on {first.target}")
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
    remaining = _still_failing(result, plan, catalog, planner) if used else None
    return Suggestion(
        base.path,
        base.table,
        base.ddl,
        base.reason,
        used and remaining is None,
        result.plan.cost,
        plan.cost,
        plan.main_node(base.table) if used else None,
        remaining,
    )


def _still_failing(result: PathResult, plan: PlanSummary, catalog: Catalog, planner: Planner) -> str | None:
    """The first plan error the path still has with the hypothetical index."""
    findings = judge(result.path, plan, catalog, planner.limits)
    return next((f.message for f in findings if f.code in PLAN_ERRORS), None)
