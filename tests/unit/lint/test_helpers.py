"""Shared helpers: boolean DefElem options, volatility, locks of option forms."""

from __future__ import annotations

import pytest
from pglast import parse_sql

from agentddl.checks.lint.ast_helpers import expression_volatility, option_enabled
from agentddl.checks.lint.locks import LockMode, all_locks
from agentddl.checks.lint.walk import walk


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
