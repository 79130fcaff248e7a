"""`--from-stats`: the workload production really runs, from pg_stat_statements.

The top statements of the audited database by total execution time, each one path
(`stats:<queryid>`) with its calls, total and mean time and rows. pg_stat_statements
stores statements normalized (`WHERE id = $1`): their parameters get values sampled
from their columns like any other (`sampling`). Kept: SELECT, INSERT, UPDATE, DELETE
and MERGE that name a table of the audited schema; left out: utility statements
(EXPLAIN, DDL, ANALYZE...), catalog queries, statements that do not parse, and the
audit's own reads of the schema (they start with the comment `/* agentddl */`).
"""

from __future__ import annotations

import re
from typing import Any

import pglast
import psycopg
from pglast import ast

from agentddl.checks.audit.paths import AuditPath, CallStats
from agentddl.checks.audit.placeholders import named
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.shape import nodes
from agentddl.checks.audit.writes import write_facts
from agentddl.checks.db import database_error, describe_dsn
from agentddl.generator.errors import AgentDDLError

DEFAULT_TOP = 20
_STATEMENTS = (ast.SelectStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)
_INSTALLED = """
SELECT n.nspname FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
WHERE e.extname = 'pg_stat_statements'
"""
# the columns were named total_time/mean_time before 13; 14+ is all agentddl supports
_TOP = """
SELECT s.queryid, s.query, s.calls, s.total_exec_time, s.mean_exec_time, s.rows
FROM {schema}.pg_stat_statements AS s
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND s.calls > 0 AND s.query NOT LIKE '/* agentddl%%'
  AND s.query !~* '^\\s*(explain|copy|create|alter|drop|analyze|vacuum|set|show|begin|commit|rollback)'
ORDER BY s.total_exec_time DESC
LIMIT %(limit)s
"""


def stats_paths(
    conn: psycopg.Connection[Any], catalog: Catalog, dsn: str, top: int = DEFAULT_TOP
) -> list[AuditPath]:
    """The top statements that read or write the audited schema, as audit paths."""
    row = conn.execute(_INSTALLED).fetchone()
    if row is None:
        raise AgentDDLError(
            f"--from-stats: pg_stat_statements is not installed in {describe_dsn(dsn)} "
            "(CREATE EXTENSION pg_stat_statements; the server needs it in shared_preload_libraries)"
        )
    schema = '"' + str(row[0]).replace('"', '""') + '"'
    try:
        # scanning a wider window than `top`: some of the heaviest are not about the schema
        rows = conn.execute(_TOP.format(schema=schema).encode(), {"limit": top * 5}).fetchall()
    except psycopg.Error as error:
        raise database_error(
            error, f"--from-stats: reading pg_stat_statements of {describe_dsn(dsn)}"
        ) from error
    paths = [p for r in rows if (p := _path(r, catalog)) is not None]
    return paths[:top]


def _path(row: tuple[Any, ...], catalog: Catalog) -> AuditPath | None:
    queryid, text, calls, total, mean, returned = row
    try:
        tree = pglast.parse_sql(text)
    except pglast.parser.ParseError:
        return None
    if len(tree) != 1 or not isinstance(tree[0].stmt, _STATEMENTS):
        return None
    tables = [
        str(rv.relname)
        for rv in nodes(tree)
        if isinstance(rv, ast.RangeVar)
        and rv.relname in catalog.columns
        and rv.schemaname in (None, catalog.schema)
    ]
    if not tables:
        return None
    count = max((int(n) for n in re.findall(r"\$(\d+)", text)), default=0)
    names = tuple(f"p{n}" for n in range(1, count + 1))
    statement = named(text, names) if names else text.replace("%", "%%")
    facts = write_facts(statement)
    return AuditPath(
        name=f"stats:{queryid}",
        sql=statement,
        params=tuple(n for n in names if f"%({n})s" in statement),
        table=tables[0],
        declared=None,
        kind="stats",
        origin=f"pg_stat_statements queryid {queryid}",
        writes=facts.writes,
        deletes=facts.deletes,
        updates=facts.updates,
        stats=CallStats(int(calls), float(total), float(mean), int(returned)),
    )
