"""Direct tests for the table-level rules (ADL301-309) beyond what fixtures can say:
docstring sections, version-dependent help, the batching heuristic, Alembic's own
bookkeeping statements."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from pglast import ast, parse_sql

from agentddl.checks.lint import LintRequest
from agentddl.checks.lint import run as run_lint
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.rules import rules_by_name
from agentddl.checks.lint.types import Finding
from agentddl.checks.pg.batching import is_unbounded_read, is_unbounded_write

TABLE_RULES = (
    "require-concurrent-reindex",
    "require-concurrent-detach-partition",
    "require-concurrent-refresh",
    "table-rewrite-operation",
    "rename-breaks-running-code",
    "drop-breaks-running-code",
    "truncate",
    "access-exclusive-with-slow-work",
    "unbatched-backfill",
)
SECTIONS = [
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "In an Alembic migration",
    "References",
]


def run(sql: str, rule: str, pg_version: int = 16, runner: str = "psql") -> list[Finding]:
    config = LintConfig(pg_version=pg_version, runner=runner)  # type: ignore[arg-type]
    return [f for f in lint(sql, "m.sql", config, only=[rule]) if f.name == rule]


@pytest.mark.parametrize("name", TABLE_RULES)
def test_docstring_has_exactly_the_doc_sections(name: str) -> None:
    rule = rules_by_name()[name]
    doc = inspect.getdoc(rule) or ""
    assert re.findall(r"^## (.+)$", doc, flags=re.MULTILINE) == SECTIONS
    assert rule.code.startswith("ADL3")


def test_reindex_help_names_the_concurrent_form_and_the_object() -> None:
    [finding] = run("REINDEX INDEX agent.runs_status_idx;", "require-concurrent-reindex")
    assert "REINDEX INDEX CONCURRENTLY" in finding.fix
    assert "agent.runs_status_idx" in finding.message


def test_index_tablespace_move_help_uses_reindex_from_14() -> None:
    sql = "ALTER INDEX agent.events_run_idx SET TABLESPACE fast;"
    [old] = run(sql, "table-rewrite-operation", pg_version=13)
    [new] = run(sql, "table-rewrite-operation", pg_version=14)
    assert "REINDEX" not in old.fix
    assert new.fix == ("Use REINDEX (TABLESPACE fast) INDEX CONCURRENTLY agent.events_run_idx instead.")


def test_slow_work_names_the_earlier_lock_and_its_line() -> None:
    sql = "BEGIN;\nALTER TABLE agent.runs ADD COLUMN p int;\n\nUPDATE agent.runs SET p = 0;\n"
    [finding] = run(sql, "access-exclusive-with-slow-work")
    assert finding.line == 4
    assert "earlier `ALTER TABLE agent.runs ADD COLUMN p int`" in finding.message


ALEMBIC_REVISION = """\
BEGIN;
ALTER TABLE agent.runs ADD COLUMN priority int;
UPDATE alembic_version SET version_num='0002' WHERE alembic_version.version_num = '0001';
COMMIT;
"""


@pytest.mark.parametrize("rule", ["unbatched-backfill", "access-exclusive-with-slow-work"])
def test_alembic_version_bookkeeping_is_not_a_backfill(rule: str) -> None:
    assert run(ALEMBIC_REVISION, rule, runner="alembic") == []


UNBOUNDED = [
    "UPDATE t SET x = 0",
    "UPDATE t SET x = 0 WHERE x IS NULL",
    "UPDATE t SET s = 'b' WHERE s = 'a'",
    "UPDATE t SET x = 0 WHERE id > 100",
    "UPDATE t SET x = 0 WHERE id > 1 AND other < 5",
    "UPDATE t SET x = 0 WHERE id = 1 OR x IS NULL",
    "UPDATE t SET x = 0 WHERE NOT (id = 1)",
    "UPDATE t SET x = u.x FROM u WHERE t.id = u.id",
    "UPDATE t SET x = 0 WHERE id IN (SELECT id FROM t WHERE x IS NULL)",
    "DELETE FROM t",
    "DELETE FROM t WHERE created_at < now() - interval '9 days'",
    "DELETE FROM t USING u WHERE t.id = u.t_id",
    "UPDATE t SET x = 0 WHERE x = (SELECT max(x) FROM t)",
    "UPDATE t SET x = 0 WHERE id = lower(name)",
]
BOUNDED = [
    "UPDATE t SET x = 1 WHERE id = 42",
    "UPDATE t SET x = 1 WHERE 42 = id",
    "UPDATE t SET x = 1 WHERE id = $1",
    "UPDATE t SET x = 1 WHERE id = '42'::bigint",
    "UPDATE t SET x = 1 WHERE id IN (1, 2)",
    "UPDATE t SET x = 1 WHERE id = ANY(ARRAY[1, 2])",
    "UPDATE t SET x = 1 WHERE id = 1 OR id = 2",
    "UPDATE t SET x = 0 WHERE x IS NULL AND id = 7",
    "UPDATE t SET x = 0 WHERE id BETWEEN 1 AND 1000",
    "UPDATE t SET x = 0 WHERE id >= 1 AND id < 1000",
    "UPDATE t SET x = 0 WHERE 1000 > id AND 1 <= id AND x IS NULL",
    "UPDATE t SET x = 0 WHERE id IN (SELECT id FROM t WHERE x IS NULL LIMIT 10)",
    "UPDATE t SET x = 0 WHERE ctid = ANY(ARRAY(SELECT ctid FROM t LIMIT 10))",
    "WITH b AS (SELECT id FROM t LIMIT 10) UPDATE t SET x = 0 FROM b WHERE t.id = b.id",
    "UPDATE t SET x = 0 FROM (SELECT id FROM t LIMIT 10) b WHERE t.id = b.id",
    "DELETE FROM t WHERE id = 42",
    "DELETE FROM t USING (SELECT id FROM t LIMIT 10) b WHERE t.id = b.id",
    "UPDATE t SET x = 0 WHERE CURRENT OF c",
    "UPDATE t SET x = 0 WHERE id = (SELECT max(id) FROM t)",
    "UPDATE t SET x = 0 WHERE email = lower('A@B.C')",
    "DELETE FROM t WHERE day = current_date",
]


@pytest.mark.parametrize("sql", UNBOUNDED)
def test_unbounded_writes(sql: str) -> None:
    assert is_unbounded_write(parse_sql(sql)[0].stmt)


@pytest.mark.parametrize("sql", BOUNDED)
def test_bounded_writes(sql: str) -> None:
    assert not is_unbounded_write(parse_sql(sql)[0].stmt)


def test_plpgsql_variables_bound_only_inside_do_blocks() -> None:
    node = parse_sql("UPDATE t SET x = 0 WHERE id >= lo AND id < lo + 500")[0].stmt
    assert is_unbounded_write(node, in_do_block=False)  # columns compared to columns
    assert not is_unbounded_write(node, in_do_block=True)  # a batching loop's variables


@pytest.mark.parametrize(
    ("sql", "unbounded"),
    [
        ("INSERT INTO a SELECT * FROM b", True),
        ("INSERT INTO a SELECT count(*) FROM b", True),
        ("INSERT INTO a SELECT * FROM b WHERE x IS NULL", True),
        ("INSERT INTO a SELECT * FROM b WHERE id = 1 UNION ALL SELECT * FROM c", True),
        ("INSERT INTO a SELECT * FROM b WHERE id = 1", False),
        ("INSERT INTO a SELECT * FROM b LIMIT 10", False),
        ("INSERT INTO a SELECT 1, 'x'", False),
        ("INSERT INTO a VALUES (1)", False),
    ],
)
def test_unbounded_reads(sql: str, unbounded: bool) -> None:
    insert = parse_sql(sql)[0].stmt
    assert isinstance(insert, ast.InsertStmt)
    assert is_unbounded_read(insert.selectStmt) is unbounded


REVISION = '''\
"""table rules"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = None


def upgrade() -> None:
    op.execute("SET LOCAL lock_timeout = '2s'")
    op.create_table("leases", sa.Column("id", sa.BigInteger(), primary_key=True), schema="agent")
    op.alter_column("leases", "id", new_column_name="lease_id", schema="agent")
    op.add_column("runs", sa.Column("priority", sa.Integer()), schema="agent")
    op.execute("UPDATE agent.runs SET priority = 0 WHERE priority IS NULL")
    op.alter_column("runs", "wake_at", new_column_name="next_wake_at", schema="agent")
    op.drop_column("runs", "legacy_state", schema="agent")
    # agentddl: ignore[drop-breaks-running-code] unused since release 2.3
    op.drop_table("old_events", schema="agent")
    with op.get_context().autocommit_block():
        op.execute("UPDATE agent.events SET seq = 0 WHERE id IN (SELECT id FROM agent.events LIMIT 10)")
'''


def test_alembic_revision_findings_land_on_the_op_calls(tmp_path: Path) -> None:
    path = tmp_path / "0007_table_rules.py"
    path.write_text(REVISION)
    report = run_lint(LintRequest([str(path)], config=LintConfig(runner="alembic")))
    lines = REVISION.splitlines()

    def line_of(needle: str) -> int:
        return next(n for n, text in enumerate(lines, 1) if needle in text)

    got = sorted((f.line, f.name) for f in report.findings if f.name in TABLE_RULES)
    assert got == sorted(
        [
            (line_of("UPDATE agent.runs"), "access-exclusive-with-slow-work"),
            (line_of("UPDATE agent.runs"), "unbatched-backfill"),
            (line_of('"wake_at"'), "rename-breaks-running-code"),
            (line_of('"legacy_state"'), "drop-breaks-running-code"),
        ]
    )
