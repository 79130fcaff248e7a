"""The generator emits only safe forms: its own Alembic migrations lint clean."""

from __future__ import annotations

from pathlib import Path

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.run import lint_paths

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


def test_generated_migrations_lint_clean() -> None:
    report = lint_paths([str(MIGRATIONS)], LintConfig())
    assert report.files >= 1
    assert [f"{f.file}:{f.line}: {f.rule}: {f.message}" for f in report.findings] == []
