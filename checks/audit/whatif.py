"""What-if questions of an in-place audit, asked where nothing can harm the target.

Two places answer them, each named in the report beside the verdicts it gave:
- **hypopg on the target**, when the audited database has the extension installed: a
  hypothetical index lives in the audit's session only (no write, ACCESS SHARE), and
  the planner re-plans the path with the target's own statistics. It answers "would
  the planner use this index?" for B-tree, hash and BRIN indexes.
- **a scratch clone** (`db.catalog_clone`): the schema and a sample of rows on another server
  (`--server`, else an embedded PostgreSQL of the target's major), never on the
  target's. There an index is dropped in a rolled-back transaction to see whether the
  workload needs it (redundant for the workload), and a suggested index is built for
  real and the query timed before and after (GIN included).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.audit.candidate import Candidate, Suggestion, index_body
from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.core.progress import Progress
from agentddl.checks.db import connect, describe_dsn, error_line, open_server
from agentddl.checks.db.catalog_clone import CloneReport, clone_schema
from agentddl.generator.errors import AgentDDLError

WHATIF_PREFIX = "agentddl_whatif_"
TIMED_RUNS = 2  # the faster of two runs: the first may read from disk


@dataclass(frozen=True)
class Clone:
    conn: psycopg.Connection[Any]
    catalog: Catalog
    rows: int  # the sample's size per table
    where: str  # the server it lives on
    report: CloneReport

    @property
    def description(self) -> str:
        return f"a scratch clone on {self.where} (up to {self.rows:,} sampled rows per table)"


@contextlib.contextmanager
def open_clone(
    source: psycopg.Connection[Any],
    schema: str,
    server: str | None,
    version: int,
    rows: int,
    progress: Progress,
) -> Iterator[tuple[Clone | None, str]]:
    """(the clone, '') or (None, why there is none): no server of the target's major,
    a scratch database refused. The clone is dropped on exit."""
    with contextlib.ExitStack() as stack:
        try:
            where = describe_dsn(server) if server else f"an embedded PostgreSQL {version}"
            progress(f"clone: starting {where}" if not server else f"clone: a scratch database on {where}")
            running = stack.enter_context(open_server(server, version=None if server else version))
            conn = stack.enter_context(connect(stack.enter_context(running.scratch_database())))
            path = source.execute("SELECT current_setting('search_path')").fetchone()
            conn.execute("SELECT set_config('search_path', %s, false)", [path[0] if path else "public"])
            report = clone_schema(source, conn, schema, rows, progress)
            clone: Clone | None = Clone(conn, read_catalog(conn, schema), rows, where, report)
            note = _lacks(report)
        except (AgentDDLError, psycopg.Error) as error:
            clone, note = None, f"no scratch clone: {error_line(error)}"
        yield clone, note


def _lacks(report: CloneReport) -> str:
    """What the clone could not recreate (the what-if verdicts about it are missing)."""
    if not report.skipped:
        return ""
    more = f" and {len(report.skipped) - 3} more" if len(report.skipped) > 3 else ""
    return "the clone lacks " + "; ".join(report.skipped[:3]) + more


def build_and_time(
    clone: Clone, planner: Planner, result: PathResult, candidate: Candidate, found: Suggestion
) -> Suggestion | None:
    """The candidate built for real in the clone (rolled back) and the path timed before
    and after: verified when the plan uses it and runs faster. None when the clone
    refuses to build it (not valid DDL)."""
    conn, schema = clone.conn, planner.schema
    before = _timed(conn, planner, result, clone.catalog)
    with conn.transaction(force_rollback=True):
        try:
            with conn.transaction():
                for n, shape in enumerate(candidate.shapes):
                    body = index_body(schema, found.table, shape, candidate.method)
                    conn.execute(f"CREATE INDEX {WHATIF_PREFIX}{n} {body}".encode())
                conn.execute(
                    sql.SQL("ANALYZE {}.{}").format(sql.Identifier(schema), sql.Identifier(found.table))
                )
        except psycopg.Error:
            return None
        after = _timed(conn, planner, result, read_catalog(conn, schema))
    if before is None or after is None or before.actual_ms is None or after.actual_ms is None:
        return found
    used = any((s.index or "").startswith(WHATIF_PREFIX) for s in after.scans)
    faster = after.actual_ms < before.actual_ms
    return replace(
        found,
        verified=used and faster and found.verified is not False,
        method="hypopg + clone" if found.method else "clone",
        cost_before=found.cost_before if found.method else before.cost,
        cost_after=found.cost_after if found.method else after.cost,
        node_after=found.node_after or (after.main_node(found.table) if used else None),
        ms_before=before.actual_ms,
        ms_after=after.actual_ms,
    )


def _timed(
    conn: psycopg.Connection[Any], planner: Planner, result: PathResult, catalog: Catalog
) -> PlanSummary | None:
    """The faster of TIMED_RUNS executions under EXPLAIN ANALYZE (None: it failed)."""
    path = result.path
    request = ExplainRequest(path.sql, result.params, None, None, analyze=True)
    best: PlanSummary | None = None
    for _ in range(TIMED_RUNS):
        try:
            plan = summarize(explain(conn, request), catalog, planner.version)
        except ExplainError:
            return None
        if best is None or (plan.actual_ms or 0.0) < (best.actual_ms or 0.0):
            best = plan
    return best
