"""The pieces of the offline reader on their own: markers, forwarded ignores, staging."""

from __future__ import annotations

from pathlib import Path

from agentddl.checks.alembic.ignores import file_ignores, line_ignores
from agentddl.checks.alembic.markers import MARKER, calling_line, mark, source_markers
from agentddl.checks.alembic.staging import stage


def test_a_marker_carries_the_ignores_of_its_line_and_the_line_above() -> None:
    source = ["x = 1  # agentddl: ignore[a] why", "op.f()  # agentddl: ignore-file[b] why", "op.g()"]
    assert line_ignores(source, 2) == ["-- agentddl: ignore[a] why", "-- agentddl: ignore-file[b] why"]
    assert mark(3, source) == f"{MARKER}3\n-- agentddl: ignore-file[b] why\n"
    assert mark(1, source) == f"{MARKER}1\n-- agentddl: ignore[a] why\n"


def test_file_wide_ignores_go_first(tmp_path: Path) -> None:
    path = tmp_path / "r.py"
    path.write_text("# agentddl: ignore-file[x] reason\nrevision = 'a'  # agentddl: ignore[y] no\n")
    assert file_ignores(path) == "-- agentddl: ignore-file[x] reason\n"


def test_alembic_s_own_lines_belong_to_no_op_line() -> None:
    sql = "\n".join(
        [
            "BEGIN;",
            "-- Running upgrade  -> a",
            f"{MARKER}7",
            "CREATE TABLE t (",
            "a int);",
            "INSERT INTO alembic_version (version_num) VALUES ('a');",
            "COMMIT;",
        ]
    )
    assert source_markers(sql) == {1: 0, 2: 0, 3: 7, 4: 7, 5: 7, 6: 0, 7: 0}


def test_the_calling_line_is_the_innermost_frame_of_the_revision() -> None:
    here = calling_line(__file__)
    assert here is not None and Path(__file__).read_text().splitlines()[here - 1].strip().startswith("here =")
    assert calling_line("/no/such/revision.py") is None


def test_staging_stubs_missing_parents_and_skips_non_revisions(tmp_path: Path) -> None:
    child = tmp_path / "b.py"
    child.write_text("revision = 'b'\ndown_revision = 'a'\n")
    loose = tmp_path / "helper.py"
    loose.write_text("def upgrade(): pass\n")
    staged = stage([child, loose], tmp_path / "env")
    assert list(staged) == [child] and staged[child].down == "a"
    stubs = sorted((tmp_path / "env" / "versions").glob("stub_*.py"))
    assert [p.read_text().splitlines()[0] for p in stubs] == ["revision = 'a'"]
    assert (tmp_path / "env" / "env.py").is_file()
