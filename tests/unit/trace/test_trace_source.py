"""Migrations become statements with the transaction structure the runner gives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.trace.source import expand, load_migrations
from agentddl.generator.errors import AgentDDLError

PSQL = """\
SET lock_timeout = '2s';
CREATE INDEX CONCURRENTLY a_idx ON t (a);
BEGIN;
ALTER TABLE t ADD COLUMN b int;
DO $$ BEGIN EXECUTE 'UPDATE t SET b = 1'; END $$;
COMMIT;
\\set x 1
"""

REVISION = """\
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade():
    op.add_column("t", __import__("sqlalchemy").Column("b", __import__("sqlalchemy").Integer()))
    with op.get_context().autocommit_block():
        op.create_index("t_b_idx", "t", ["b"], postgresql_concurrently=True)
"""


def test_a_psql_script(tmp_path: Path) -> None:
    path = tmp_path / "m.sql"
    path.write_text(PSQL, encoding="utf-8")
    (migration,) = load_migrations([path], 16)
    shape = [(s.line, s.control, s.in_block, s.needs_autocommit) for s in migration.statements]
    assert shape == [
        (1, None, False, False),
        (2, None, False, True),
        (3, "begin", True, False),
        (4, None, True, False),
        (5, None, True, False),  # the DO block runs once, as one statement
        (6, "commit", True, False),
    ]


def test_an_alembic_revision_maps_statements_to_op_lines(tmp_path: Path) -> None:
    path = tmp_path / "0002_b.py"
    path.write_text(REVISION, encoding="utf-8")
    (migration,) = load_migrations([path], 16)
    work = [s for s in migration.statements if s.control is None]
    assert [(s.line, s.needs_autocommit, s.in_block) for s in work] == [(8, False, True), (10, True, False)]
    assert "alembic_version" not in " ".join(s.sql for s in migration.statements)
    assert work[1].sql.startswith("CREATE INDEX CONCURRENTLY")


def test_folders_expand_sql_by_name_then_revisions_by_chain(tmp_path: Path) -> None:
    for name, down in (("b_second.py", "'r1'"), ("a_first.py", "None")):
        revision = "r2" if down != "None" else "r1"
        text = f"revision = '{revision}'\ndown_revision = {down}\n\ndef upgrade():\n    pass\n"
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "2.sql").write_text("SELECT 1;", encoding="utf-8")
    (tmp_path / "1.sql").write_text("SELECT 1;", encoding="utf-8")
    assert [p.name for p in expand([tmp_path])] == ["1.sql", "2.sql", "a_first.py", "b_second.py"]


def test_mistakes_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(AgentDDLError, match="no such file"):
        load_migrations([tmp_path / "missing.sql"], 16)
    bad = tmp_path / "bad.sql"
    bad.write_text("SELECT 1;\nCREATE TABL x ();\n", encoding="utf-8")
    with pytest.raises(AgentDDLError, match=r"bad.sql:2:\d+: syntax error"):
        load_migrations([bad], 16)


def test_copy_from_stdin_carries_its_data_lines(tmp_path: Path) -> None:
    path = tmp_path / "copy.sql"
    path.write_text(
        "COPY t (a, b) FROM stdin;\n1\tone\n2\t\\N\n\\.\nCOPY t TO STDOUT;\nCOPY t FROM '/srv/t.csv';\n"
        "COPY t FROM stdin;\n3\tlast, no end marker\n",
        encoding="utf-8",
    )
    (migration,) = load_migrations([path], 16)
    shape = [(s.line, s.copy_data, s.copies_to_client) for s in migration.statements]
    assert shape == [
        (1, "1\tone\n2\t\\N\n", False),
        (5, None, True),
        (6, None, False),  # a server-side file: the server reads it
        (7, "3\tlast, no end marker\n", False),
    ]


def test_alembic_offline_output_leaves_its_version_table_out(tmp_path: Path) -> None:
    path = tmp_path / "upgrade.sql"  # what `alembic upgrade 0001:0002 --sql` prints
    path.write_text(
        "BEGIN;\n\n-- Running upgrade 0001 -> 0002\n\nCREATE INDEX t_a_idx ON t (a);\n\n"
        "UPDATE alembic_version SET version_num='0002' WHERE alembic_version.version_num = '0001';\n\n"
        "COMMIT;\n",
        encoding="utf-8",
    )
    (migration,) = load_migrations([path], 16)
    assert [(s.line, s.control) for s in migration.statements] == [(1, "begin"), (5, None), (9, "commit")]


def test_an_error_position_becomes_file_line_column(tmp_path: Path) -> None:
    path = tmp_path / "m.sql"
    path.write_text("SELECT 1;\n  INSERT INTO t\n    SELECT nope FROM t;\n", encoding="utf-8")
    (migration,) = load_migrations([path], 16)
    insert = migration.statements[1]
    assert insert.where() == f"{path}:2:3"
    assert insert.where(8) == f"{path}:2:10"  # INTO, on the statement's first line
    assert insert.where(insert.sql.index("nope") + 1) == f"{path}:3:12"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('    op.execute("SELECT 1"\n', "0002_bad.py:8:15: '(' was never closed"),  # not Python
        (
            '    op.execute("SELECT 1")\n    op.execute("SELEC 1")\n',
            '0002_bad.py:9: syntax error at or near "SELEC"',  # the op.execute line
        ),
    ],
)
def test_a_broken_revision_is_reported_at_its_own_line(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "0002_bad.py"
    path.write_text(REVISION.split("def upgrade():")[0] + "def upgrade():\n" + body, encoding="utf-8")
    with pytest.raises(AgentDDLError) as raised:
        load_migrations([path], 16)
    assert str(raised.value) == f"{path.parent}/{message}"
