"""The column/type reasoning behind ADL205-ADL209 (checks/lint/columns.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pglast import ast, parse_sql

from agentddl.checks.pg.columns import (
    column_type,
    default_expression,
    implies_not_null,
    keeps_contents,
    rewrite_needed,
    rewrite_needed_from_unknown,
)
from agentddl.checks.pg.names import ColumnType
from agentddl.checks.pg.walk import walk


def _type(sql_type: str) -> ColumnType:
    node = parse_sql(f"ALTER TABLE t ALTER COLUMN c TYPE {sql_type}")[0].stmt
    return column_type(node.cmds[0].def_.typeName)


@pytest.mark.parametrize(
    ("old", "new", "rewrites"),
    [
        ("varchar(10)", "varchar(20)", False),
        ("varchar(10)", "varchar(10)", False),
        ("varchar(20)", "varchar(10)", True),
        ("varchar(10)", "varchar", False),
        ("varchar", "varchar(10)", True),
        ("varchar(10)", "text", False),
        ("text", "varchar", False),
        ("text", "varchar(10)", True),
        ("numeric(10,2)", "numeric(12,2)", False),
        ("numeric(10,2)", "numeric(12,3)", True),
        ("numeric(10,2)", "numeric(8,2)", True),
        ("numeric(10,2)", "numeric", False),
        ("numeric", "numeric(10,2)", True),
        ("bit varying(4)", "varbit(8)", False),
        ("timestamp(3)", "timestamp", False),
        ("timestamp", "timestamp(3)", True),
        ("cidr", "inet", False),
        ("inet", "cidr", True),
        ("xml", "text", False),
        ("int", "bigint", True),
        ("int", "int4", False),
        ("int[]", "bigint[]", True),
        ("int", "int[]", True),
        ("json", "jsonb", True),
        ("text", "citext", False),
        ("char(5)", "char(10)", True),
        ("serial", "bigint", True),
        ("bigserial", "int8", False),
    ],
)
def test_rewrite_needed_for_known_old_types(old: str, new: str, rewrites: bool) -> None:
    assert rewrite_needed(_type(old), _type(new), utc_session=False) is rewrites


def test_timestamp_to_timestamptz_is_free_only_in_a_utc_session() -> None:
    old, new = _type("timestamp"), _type("timestamptz")
    assert rewrite_needed(old, new, utc_session=True) is False
    assert rewrite_needed(old, new, utc_session=False) is True


def test_unknown_types_give_no_verdict() -> None:
    assert rewrite_needed(_type("mood"), _type("text"), utc_session=False) is None
    assert (
        rewrite_needed(_type("geometry(Point,4326)"), _type("geometry(Point,3857)"), utc_session=False)
        is None
    )


@pytest.mark.parametrize(
    ("new", "rewrites"),
    [
        ("bigint", True),
        ("uuid", True),
        ("jsonb", True),
        ("boolean", True),
        ("date", True),
        ("varchar(20)", None),
        ("text", None),
        ("numeric(12,2)", None),
        ("timestamptz", None),
        ("mood", None),
        ("public.citext", None),
    ],
)
def test_rewrite_from_an_unknown_old_type(new: str, rewrites: bool | None) -> None:
    assert rewrite_needed_from_unknown(_type(new)) is rewrites


def _check(expr: str) -> Any:
    node = parse_sql(f"ALTER TABLE t ADD CHECK ({expr})")[0].stmt
    return node.cmds[0].def_.raw_expr


@pytest.mark.parametrize(
    ("expr", "implies"),
    [
        ("c IS NOT NULL", True),
        ("t.c IS NOT NULL", True),
        ("c IS NOT NULL AND d > 0", True),
        ("NOT (c IS NULL)", True),
        ("c IS NOT NULL OR d > 0", False),
        ("d IS NOT NULL", False),
        ("c > 0", False),
        ('"C" IS NOT NULL', False),
    ],
)
def test_implies_not_null(expr: str, implies: bool) -> None:
    assert implies_not_null(_check(expr), "c") is implies


@pytest.mark.parametrize(
    ("using", "keeps"),
    [
        ("c", True),
        ("c::text", True),
        ("c::varchar(10)::text", True),
        ("lower(c)", False),
        ("d", False),
        ("c + 1", False),
    ],
)
def test_keeps_contents(using: str, keeps: bool) -> None:
    node = parse_sql(f"ALTER TABLE t ALTER COLUMN c TYPE text USING {using}")[0].stmt
    assert keeps_contents(node.cmds[0].def_.raw_default, "c") is keeps


@pytest.mark.parametrize(
    ("default", "present"),
    [("0", True), ("NULL", False), ("NULL::text", False), ("'x'::text", True), ("now()", True)],
)
def test_default_expression(default: str, present: bool) -> None:
    node = parse_sql(f"ALTER TABLE t ADD COLUMN c text DEFAULT {default}")[0].stmt
    column = node.cmds[0].def_
    assert isinstance(column, ast.ColumnDef)
    assert (default_expression(column) is not None) is present


@pytest.mark.parametrize(
    ("sql", "zone"),
    [
        ("SET timezone = 'UTC';", "utc"),
        ("SET TIME ZONE 'Europe/Paris';", "europe/paris"),
        ("SET timezone = 'UTC'; RESET timezone;", None),
        ("SET timezone = 'UTC'; RESET ALL;", None),
        ("BEGIN; SET LOCAL timezone = 'UTC'; COMMIT;", None),
        ("SET LOCAL timezone = 'UTC';", None),
        ("BEGIN; SET LOCAL timezone = 'UTC';", "utc"),
        ("BEGIN; SET timezone = 'UTC'; ROLLBACK;", None),
        ("SELECT set_config('timezone', 'UTC', false);", "utc"),
    ],
)
def test_session_timezone(sql: str, zone: str | None) -> None:
    migration = walk(sql + " SELECT 1;", "m.sql", 16, "psql")
    _, context = migration.steps[-1]
    assert context.timezone == zone
