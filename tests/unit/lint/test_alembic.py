"""Alembic revisions linted through Alembic's own offline (`--sql`) output."""

from __future__ import annotations

import textwrap
from pathlib import Path

from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig

HEADER = '''\
"""{doc}"""
import sqlalchemy as sa
from alembic import op

revision = "{rev}"
down_revision = {down}
branch_labels = None
depends_on = None


def upgrade() -> None:
'''


def _revision(folder: Path, rev: str, body: str, down: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rev}_rev.py"
    head = HEADER.format(doc=rev, rev=rev, down=repr(down))
    path.write_text(head + textwrap.indent(textwrap.dedent(body), "    ") + "\n")
    return path


def _findings(path: Path) -> list[tuple[int, str]]:
    report = run(LintRequest([str(path)], config=LintConfig()))
    return [(f.line, f.name) for f in report.findings]


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_create_index_is_reported_at_the_op_call(tmp_path: Path) -> None:
    path = _revision(
        tmp_path,
        "0002",
        """\
        op.execute("SET LOCAL lock_timeout = '2s'")
        op.create_index("idx_runs_status", "runs", ["status"], schema="agent")
    """,
        down="0001",
    )  # the parent is not here: linted on its own
    line = _line_of(path, "op.create_index")
    assert _findings(path) == [(line, "require-concurrent-index-creation")]


def test_new_table_indexed_in_the_same_revision_is_clean(tmp_path: Path) -> None:
    path = _revision(
        tmp_path,
        "0001",
        """\
        op.create_table(
            "leases",
            sa.Column("id", sa.BigInteger, primary_key=True),
            sa.Column("run_id", sa.BigInteger, nullable=False),
            schema="agent",
        )
        op.create_index("idx_leases_run", "leases", ["run_id"], schema="agent")
    """,
    )
    assert _findings(path) == []


def test_autocommit_block_runs_concurrently_outside_the_transaction(tmp_path: Path) -> None:
    good = _revision(
        tmp_path / "good",
        "0003",
        """\
        with op.get_context().autocommit_block():
            op.create_index("idx_runs_wake", "runs", ["wake_at"], schema="agent",
                            postgresql_concurrently=True, if_not_exists=True)
    """,
    )
    assert _findings(good) == []
    not_rerunnable = _revision(
        tmp_path / "plain",
        "0003",
        """\
        with op.get_context().autocommit_block():
            op.create_index("idx_runs_wake", "runs", ["wake_at"], schema="agent",
                            postgresql_concurrently=True)
    """,
    )  # a failed build leaves an invalid index, and the re-run fails on its name
    assert _findings(not_rerunnable) == [(_line_of(not_rerunnable, "op.create_index"), "not-rerunnable")]
    bad = _revision(
        tmp_path / "bad",
        "0003",
        """\
        op.create_index("idx_runs_wake", "runs", ["wake_at"], schema="agent",
                        postgresql_concurrently=True)
    """,
    )
    assert _findings(bad) == [(_line_of(bad, "op.create_index"), "concurrently-in-transaction")]


def test_op_execute_sql_and_ignore_comments(tmp_path: Path) -> None:
    path = _revision(
        tmp_path,
        "0004",
        """\
        op.execute("SET LOCAL lock_timeout = '2s'")
        # agentddl: ignore[require-concurrent-index-creation] flags has 12 rows
        op.execute("CREATE INDEX idx_flags_name ON agent.flags (name)")
        op.execute(
            "CREATE INDEX idx_regions ON agent.regions (code)"
            " -- agentddl: ignore[require-concurrent-index-creation] 40 rows"
        )
        op.execute("CREATE INDEX idx_runs_trace ON agent.runs (trace_id)")
    """,
    )
    assert _findings(path) == [(_line_of(path, "idx_runs_trace"), "require-concurrent-index-creation")]


def test_environment_folder_lints_every_revision(tmp_path: Path) -> None:
    env = tmp_path / "migrations"
    (env / "versions").mkdir(parents=True)
    (env / "env.py").write_text("raise RuntimeError('the project env.py is never imported')\n")
    _revision(env / "versions", "0001", "op.create_table('t', sa.Column('id', sa.Integer))")
    second = _revision(env / "versions", "0002", "op.drop_index('idx_old', table_name='t')", down="0001")
    report = run(LintRequest([str(env)], config=LintConfig()))
    assert report.files == 2
    assert {(f.file, f.name) for f in report.findings} == {
        (str(second), "require-concurrent-index-deletion"),
        (str(second), "require-lock-timeout"),
    }


def test_unloadable_revision_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = _revision(tmp_path, "0005", "import no_such_module_anywhere  # noqa")
    report = run(LintRequest([str(path)], config=LintConfig()))
    line = _line_of(path, "import no_such_module_anywhere")
    assert [(f.line, f.name, f.severity) for f in report.findings] == [(line, "unreadable-revision", "error")]
    assert report.exit_code == 1
    assert "no_such_module_anywhere" in report.findings[0].message


def test_python_syntax_error_is_an_error(tmp_path: Path) -> None:
    path = _revision(tmp_path, "0006", "op.execute(")
    report = run(LintRequest([str(path)], config=LintConfig()))
    assert [(f.name, f.severity) for f in report.findings] == [("syntax-error", "error")]


def test_offline_failure_keeps_what_rendered_before_it(tmp_path: Path) -> None:
    path = _revision(
        tmp_path,
        "0007",
        """\
        op.execute("SET LOCAL lock_timeout = '2s'")
        op.create_index("idx_runs_status", "runs", ["status"], schema="agent")
        rows = op.get_bind().execute(sa.text("SELECT id FROM agent.runs")).fetchall()
    """,
    )
    report = run(LintRequest([str(path)], config=LintConfig()))
    found = [(f.line, f.name, f.severity) for f in report.findings]
    assert found == [
        (_line_of(path, "op.create_index"), "require-concurrent-index-creation", "error"),
        (_line_of(path, "get_bind"), "unreadable-revision", "error"),
    ]
    assert "were not linted" in report.findings[-1].message


def test_an_unreadable_revision_can_be_ignored_or_configured(tmp_path: Path) -> None:
    body = """\
        # agentddl: ignore[unreadable-revision] a data migration, no DDL
        rows = op.get_bind().execute(sa.text("SELECT 1")).fetchall()
    """
    ignored = _revision(tmp_path / "a", "0011", body)
    assert run(LintRequest([str(ignored)], config=LintConfig())).findings == []
    plain = _revision(tmp_path / "b", "0012", 'rows = op.get_bind().execute(sa.text("SELECT 1")).fetchall()')
    relaxed = LintConfig(severities={"unreadable-revision": "warning"})
    found = run(LintRequest([str(plain)], config=relaxed)).findings
    assert [(f.name, f.severity) for f in found] == [("unreadable-revision", "warning")]


def test_existing_type_tells_a_free_widening_from_a_rewriting_narrowing(tmp_path: Path) -> None:
    path = _revision(
        tmp_path,
        "0009",
        """\
        op.execute("SET LOCAL lock_timeout = '2s'")
        op.alter_column("runs", "trace_id", existing_type=sa.String(64), type_=sa.String(255), schema="agent")
        op.alter_column("runs", "label", existing_type=sa.String(64), type_=sa.String(16), schema="agent")
        op.alter_column("runs", "cost", existing_type=sa.Numeric(10, 2), type_=sa.Numeric(14, 2))
        """,
    )
    assert _findings(path) == [(_line_of(path, '"label"'), "column-type-change-rewrites")]


def test_existing_nullable_and_server_default_are_read(tmp_path: Path) -> None:
    """existing_nullable=False: SET NOT NULL changes nothing (no finding); the
    existing_server_default shows in a narrowing change's message."""
    path = _revision(
        tmp_path,
        "0013",
        """\
        op.execute("SET LOCAL lock_timeout = '2s'")
        op.alter_column("runs", "kind", nullable=False, existing_nullable=False, schema="agent")
        op.alter_column("runs", "label", nullable=False, existing_nullable=True, schema="agent")
        op.alter_column("runs", "code", existing_type=sa.String(20), type_=sa.String(5),
                        existing_server_default="none", schema="agent")
        """,
    )
    report = run(LintRequest([str(path)], config=LintConfig()))
    assert [(f.line, f.name) for f in report.findings] == [
        (_line_of(path, '"label"'), "set-not-null-requires-check"),
        (_line_of(path, '"label"'), "not-null-over-nulls"),  # its NULLs would fail it too
        (_line_of(path, '"code"'), "column-type-change-rewrites"),
    ]
    assert "(its default, 'none', included)" in report.findings[2].message
