"""The generator emits only safe forms: its own Alembic migrations lint clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from profiles import example_profiles

from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.output import write_files

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


def test_generated_migrations_lint_clean() -> None:
    report = run(LintRequest([str(MIGRATIONS)], config=LintConfig()))
    assert report.files >= 1
    assert [f"{f.file}:{f.line}: {f.name}: {f.message}" for f in report.findings] == []


@pytest.mark.parametrize("name", sorted(example_profiles()))
def test_every_example_profiles_output_lints_clean(name: str, tmp_path: Path) -> None:
    profile = example_profiles()[name]
    write_files(render_artifacts(profile), tmp_path)
    config = LintConfig(pg_version=profile.engine.version)
    report = run(LintRequest([str(tmp_path / "versions"), str(tmp_path / "schema.sql")], config=config))
    assert report.files == 2
    assert [f"{f.file}:{f.line}: {f.name}: {f.message}" for f in report.findings] == []
