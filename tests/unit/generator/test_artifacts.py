"""Generated artifacts: deterministic, in sync with the repo, parseable, clean."""

from __future__ import annotations

from pathlib import Path

import pglast
import pytest
import sqlfluff
from profiles import ROOT, example_profiles

from agentddl.checks.cli.main import main
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.profile import load_profile
from agentddl.generator.profile.jsonschema import profile_json_schema
from agentddl.generator.render.alembic import REVISION_FILE

PROFILES = example_profiles()


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_rendering_is_byte_identical(name: str) -> None:
    assert render_artifacts(PROFILES[name]) == render_artifacts(PROFILES[name])


def test_generate_twice_gives_identical_files(tmp_path: Path) -> None:
    profile = str(ROOT / "schemas" / "default.yaml")
    assert main(["generate", profile, "--out", str(tmp_path / "a")]) == 0
    assert main(["generate", profile, "--out", str(tmp_path / "b")]) == 0
    first = {
        p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()
    }
    second = {
        p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()
    }
    assert first == second
    assert {str(p) for p in first} == {
        "schema.sql",
        "queries.sql",
        "PLAN.md",
        f"versions/{REVISION_FILE}",
    }


def test_checked_in_migration_equals_fresh_output() -> None:
    fresh = render_artifacts(load_profile(ROOT / "schemas" / "default.yaml"))[f"versions/{REVISION_FILE}"]
    on_disk = (ROOT / "migrations" / "versions" / REVISION_FILE).read_text(encoding="utf-8")
    assert on_disk == fresh, "migrations/ is stale: run `make generate`"


def test_generate_check_reports_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = str(ROOT / "schemas" / "default.yaml")
    assert main(["generate", profile, "--out", str(tmp_path)]) == 0
    assert main(["generate", profile, "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "schema.sql").write_text("-- edited by hand\n")
    assert main(["generate", profile, "--out", str(tmp_path), "--check"]) == 1
    assert "schema.sql" in capsys.readouterr().err


def test_profile_json_schema_is_in_sync() -> None:
    on_disk = (ROOT / "schemas" / "profile.schema.json").read_text(encoding="utf-8")
    assert on_disk == profile_json_schema(), "run `make generate`"


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_statement_parses_with_pglast(name: str) -> None:
    files = render_artifacts(PROFILES[name])
    statements = pglast.parse_sql(files["schema.sql"])
    assert len(statements) > 30


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_schema_sql_is_clean_under_sqlfluff(name: str) -> None:
    sql = render_artifacts(PROFILES[name])["schema.sql"]
    config = sqlfluff.core.FluffConfig.from_path(str(ROOT))
    violations = sqlfluff.core.Linter(config=config).lint_string(sql).get_violations()
    assert [str(v) for v in violations] == []
