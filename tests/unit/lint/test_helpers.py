"""Shared helpers: boolean DefElem options, volatility, locks of option forms."""

from __future__ import annotations

import pytest
from pglast import ast, parse_sql

from agentddl.checks.pg.ast_helpers import expression_volatility, iter_nodes, option_enabled
from agentddl.checks.pg.locks import LockMode, all_locks
from agentddl.checks.pg.walk import walk


@pytest.mark.parametrize(
    ("sql", "enabled"),
    [
        ("REINDEX (CONCURRENTLY) TABLE t", True),
        ("REINDEX TABLE CONCURRENTLY t", True),
        ("REINDEX (CONCURRENTLY true) TABLE t", True),
        ("REINDEX (CONCURRENTLY on) TABLE t", True),
        ("REINDEX (CONCURRENTLY 1) TABLE t", True),
        ("REINDEX (CONCURRENTLY false) TABLE t", False),
        ("REINDEX (CONCURRENTLY OFF) TABLE t", False),
        ("REINDEX (CONCURRENTLY 0) TABLE t", False),
        ("REINDEX (VERBOSE) TABLE t", False),
        ("REINDEX TABLE t", False),
    ],
)
def test_option_enabled_reads_booleans_as_postgresql_does(sql: str, enabled: bool) -> None:
    assert option_enabled(parse_sql(sql)[0].stmt.params, "concurrently") is enabled


@pytest.mark.parametrize(
    ("sql", "mode"),
    [
        ("VACUUM FULL agent.runs", LockMode.ACCESS_EXCLUSIVE),
        ("VACUUM (FULL, ANALYZE) agent.runs", LockMode.ACCESS_EXCLUSIVE),
        ("VACUUM (FULL false) agent.runs", LockMode.SHARE_UPDATE_EXCLUSIVE),
        ("VACUUM (FULL off, ANALYZE) agent.runs", LockMode.SHARE_UPDATE_EXCLUSIVE),
        ("REINDEX (CONCURRENTLY false) TABLE agent.runs", LockMode.SHARE),
        ("REINDEX (CONCURRENTLY) TABLE agent.runs", LockMode.SHARE_UPDATE_EXCLUSIVE),
    ],
)
def test_locks_of_boolean_option_forms(sql: str, mode: LockMode) -> None:
    statement, context = walk(sql, "m.sql", 16, "psql").steps[0]
    assert [lock[1] for lock in all_locks(statement, context)] == [mode]


@pytest.mark.parametrize("function", ["uuid_generate_v7", "uuidv7", "gen_random_uuid"])
def test_uuid_generators_are_volatile(function: str) -> None:
    expr = parse_sql(f"SELECT {function}()")[0].stmt.targetList[0].val
    assert expression_volatility(expr) == "volatile"


def _every_field_walk(node: object) -> list[object]:
    """The obvious walk over every field, to check the fast one against."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            found.append(item)
            children = [getattr(item, name) for name in item]
            stack.extend(c for c in reversed(children) if isinstance(c, ast.Node | tuple | list))
        elif isinstance(item, tuple | list):
            stack.extend(c for c in reversed(item) if isinstance(c, ast.Node | tuple | list))
    return found


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE a.t (id bigint PRIMARY KEY, b text CHECK (b <> '') REFERENCES c (d))",
        "WITH x AS (SELECT 1 AS n) UPDATE t SET a = (SELECT max(n) FROM x) WHERE id IN (1, 2)",
        "CREATE FOREIGN TABLE f (a int CONSTRAINT c CHECK (a > 0)) SERVER s",
        "ALTER TABLE t ADD COLUMN c int DEFAULT nextval('s'), ALTER COLUMN d TYPE bigint USING d::bigint",
        "SELECT JSON_OBJECT('a': 1), x FROM JSON_TABLE('[]', '$[*]' COLUMNS (x int PATH '$.x')) j",
    ],
)
def test_iter_nodes_visits_every_node_in_field_order(sql: str) -> None:
    node = parse_sql(sql)[0].stmt
    walked, expected = list(iter_nodes(node)), _every_field_walk(node)
    assert len(walked) == len(expected) and all(a is b for a, b in zip(walked, expected, strict=True))
