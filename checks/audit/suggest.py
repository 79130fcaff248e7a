"""The index that would serve a failing path, and the proof that it does.

The key is read from the query (`shape.index_shapes`: the first shape the table lacks),
kept to the table's own columns (a subquery's output column is no key: no suggestion
rather than invalid DDL), and compared with the table's indexes by definition (column
or expression, operator class, direction, predicate): an index that an existing one
already leads with is never suggested. Containment (`@>`) on jsonb is a GIN index with
`jsonb_path_ops`, `?` a plain jsonb GIN; where a query has both a B-tree key and a
containment, both are candidates and the proof picks.

The proof, each where available (`method` says which judged):
- hypopg on the audited database: a hypothetical index (nothing written, ACCESS SHARE)
  and the path re-planned: the planner must pick it and the plan pass the same judge;
- a scratch clone (`whatif.Clone`): the index built for real on the clone's rows and the
  query timed before and after under EXPLAIN ANALYZE: it must be used and faster.
A what-if that fails is no crash: DDL the server refuses is no suggestion. In place a
candidate a what-if refutes is dropped; otherwise it stays a reasoned suggestion.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import psycopg

from agentddl.checks.audit.candidate import Candidate, Suggestion, create_statement, index_body
from agentddl.checks.audit.definitions import covered_by_existing, valid_parts
from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.judge import judge, plan_errors
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.audit.shape import IndexShape, KeyPart, index_shapes
from agentddl.checks.audit.whatif import Clone, build_and_time

__all__ = ["Suggestion", "suggest"]

HYPOPG_METHODS = ("btree", "hash", "brin")  # what hypopg can make hypothetical


def suggest(
    conn: psycopg.Connection[Any],
    planner: Planner,
    result: PathResult,
    catalog: Catalog,
    hypopg: bool,
    clone: Clone | None = None,
    in_place: bool = False,
) -> Suggestion | None:
    """The index for the path's first failing table, proven where a what-if is at hand.
    None when no new index is the fix: the path could not be planned, lost its declared
    index (recreate that one), reads every partition (compare the key bare), the index
    the query asks for already exists, or (in place) every candidate was refuted.
    On a scratch database hypopg is created in the rolled-back transaction of each check;
    in place it must be installed already (nothing is created there)."""
    if result.plan is None or not any(f.code in plan_errors() for f in result.findings):
        return None
    table = _failing_table(result) or result.path.table
    if table is None:
        return None
    judged = []
    for candidate in _candidates(result.path.sql, table, catalog):
        found = _judged(conn, planner, result, catalog, table, candidate, (hypopg, in_place), clone)
        if found is not None and found.verified:
            return found
        if found is not None and not (in_place and found.verified is False):
            judged.append(found)
    judged.sort(key=lambda s: s.verified is False)  # unchecked before refuted
    return judged[0] if judged else None


def _candidates(statement: str, table: str, catalog: Catalog) -> list[Candidate]:
    """B-tree (per OR arm) and GIN candidates of the first shape the table lacks."""
    for shape in index_shapes(statement, table):
        kept = valid_parts(shape, table, catalog)
        if kept is None:
            continue
        found = []
        arms = [arm for arm in kept.arms if not covered_by_existing(arm, table, catalog, "btree")]
        if kept.arms and arms:
            found.append(Candidate(tuple(arms), "btree"))
        elif not kept.arms and kept.parts and not covered_by_existing(kept, table, catalog, "btree"):
            found.append(Candidate((kept,), "btree"))
        gin = _gin_shape(kept, table, catalog)
        if gin is not None and not covered_by_existing(gin, table, catalog, "gin"):
            # a containment with no equality to lead a B-tree: GIN is the index for it
            found.insert(0 if not kept.equality else len(found), Candidate((gin,), "gin"))
        if found:
            return found
    return []


def _gin_shape(shape: IndexShape, table: str, catalog: Catalog) -> IndexShape | None:
    """The containment tests as GIN keys: jsonb `@>` alone takes jsonb_path_ops (smaller,
    faster for containment), `?` needs the default jsonb_ops, arrays the default."""
    parts = []
    for target in dict.fromkeys(p.target for p in shape.gin):
        ops = {p.suffix for p in shape.gin if p.target == target}
        jsonb = catalog.types.get((table, target), "jsonb") == "jsonb"
        parts.append(KeyPart(target, "jsonb_path_ops" if jsonb and ops == {"@>"} else ""))
    return IndexShape(equality=parts, partial=list(shape.partial)) if parts else None


def _judged(
    conn: psycopg.Connection[Any],
    planner: Planner,
    result: PathResult,
    catalog: Catalog,
    table: str,
    candidate: Candidate,
    hypopg: tuple[bool, bool],  # (hypopg may be used, in place: it is installed already)
    clone: Clone | None,
) -> Suggestion | None:
    partitioned = table in catalog.partitions
    ddl = create_statement(planner.schema, table, candidate, partitioned)
    reason = _reason(
        candidate.shapes[0] if len(candidate.shapes) == 1 else IndexShape(arms=list(candidate.shapes))
    )
    if candidate.method == "gin":
        reason = (
            f"GIN on {', '.join(str(p) for p in candidate.shapes[0].parts)}: containment is what GIN serves"
        )
    found: Suggestion | None = Suggestion(result.path.name, table, ddl, reason, None)
    if hypopg[0] and candidate.method in HYPOPG_METHODS:
        targets = catalog.leaves.get(table, ()) if partitioned else (table,)
        bodies = [index_body(planner.schema, t, s) for s in candidate.shapes for t in targets]
        found = (
            _verify(conn, planner, result, catalog, found, bodies, create=not hypopg[1]) if found else None
        )
    if clone is not None and found is not None and found.verified is not False:
        found = build_and_time(clone, planner, result, candidate, found)
    return found


def _failing_table(result: PathResult) -> str | None:
    """The table an error finding names (a sequential scan's first): whole words, so
    `runs` is not found in a path named `run_without_tenant`."""
    scans = sorted(result.plan.scans if result.plan else (), key=lambda s: s.node != "Seq Scan")
    for finding in result.findings:
        for scan in scans if finding.is_error else ():
            if re.search(rf"\b{re.escape(scan.table)}\b", finding.message):
                return scan.table
    return None


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
    create: bool,
) -> Suggestion | None:
    """Re-plan the path with the hypothetical indexes (hypopg, in this session only).
    None when hypopg refuses the index (not valid DDL)."""
    path = result.path
    with conn.transaction(force_rollback=True):
        if create:
            conn.execute("CREATE EXTENSION IF NOT EXISTS hypopg")
        names = set()
        try:
            with conn.transaction():  # a savepoint: a refused index leaves the session usable
                for body in bodies:
                    row = conn.execute(
                        "SELECT indexname FROM hypopg_create_index(%s)", [f"CREATE INDEX {body}"]
                    )
                    names.add(str(row.fetchone()[0]))  # type: ignore[index]
        except psycopg.Error:
            conn.execute("SELECT hypopg_reset()")
            return None
        try:
            tenant = planner.tenant_column
            request = ExplainRequest(path.sql, result.params, path.role, result.params.get(tenant or ""))
            plan = summarize(explain(conn, request), catalog, planner.version)
        except ExplainError:
            return base
        finally:
            conn.execute("SELECT hypopg_reset()")
    assert result.plan is not None
    used = any(s.index in names for s in plan.scans)
    remaining = _still_failing(result, plan, catalog, planner) if used else None
    return replace(
        base,
        verified=used and remaining is None,
        cost_before=result.plan.cost,
        cost_after=plan.cost,
        node_after=plan.main_node(base.table) if used else None,
        remaining=remaining,
        method="hypopg",
    )


def _still_failing(result: PathResult, plan: PlanSummary, catalog: Catalog, planner: Planner) -> str | None:
    """The first plan error the path still has with the hypothetical index."""
    findings = judge(result.path, plan, catalog, planner.limits)
    return next((f.message for f in findings if f.code in plan_errors()), None)
