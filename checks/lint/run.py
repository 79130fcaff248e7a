"""Lint what the user named: SQL files, directories, stdin, Alembic revisions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from agentddl.checks.lint.config import ConfigError, LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.report import LintReport
from agentddl.checks.lint.rules import rules_by_name
from agentddl.checks.lint.types import Finding
from agentddl.checks.pg import alembic_offline

STDIN = "-"
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "build"}


def lint_paths(paths: list[str], config: LintConfig, stdin: TextIO | None = None) -> LintReport:
    """Lint every input; a path that does not exist is a usage error (exit 2)."""
    report = LintReport()
    revisions: list[Path] = []
    for path in paths:
        if path == STDIN:
            text = stdin.read() if stdin is not None else ""
            report.add("<stdin>", text, lint(text, "<stdin>", config))
            continue
        for kind, found in _expand(Path(path)):
            if kind == "sql":
                _lint_sql_file(found, config, report)
            else:
                revisions.append(found)
    if revisions:
        _lint_revisions(revisions, config, report)
    return report


def _expand(path: Path) -> Iterator[tuple[str, Path]]:
    if not path.exists():
        raise ConfigError(f"{path}: no such file or directory")
    if path.is_file():
        yield ("revision" if path.suffix == ".py" else "sql"), path
    elif alembic_offline.is_environment(path):
        for folder in alembic_offline.environment_versions(path):
            yield from (("revision", p) for p in alembic_offline.revision_files([folder]))
    else:
        for child in sorted(path.iterdir()):
            if child.is_dir() and child.name not in _SKIP_DIRS:
                yield from _expand(child)
            elif child.is_file() and child.suffix == ".sql":
                yield "sql", child
            elif child.is_file() and child.suffix == ".py" and _looks_like_revision(child):
                yield "revision", child


def _looks_like_revision(path: Path) -> bool:
    """A loose Alembic revision script: module-level `revision = "..."` and an upgrade()."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return "def upgrade(" in text and alembic_offline.revision_identity(path) is not None


def _lint_sql_file(path: Path, config: LintConfig, report: LintReport) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    report.add(str(path), text, lint(text, str(path), config))


def _lint_revisions(revisions: list[Path], config: LintConfig, report: LintReport) -> None:
    alembic_config = replace(config, runner="alembic")
    for result in alembic_offline.offline_sql(_unique(revisions)):
        file = str(result.path)
        source = result.path.read_text(encoding="utf-8")
        lines = source.splitlines()
        findings = lint(result.sql, file, alembic_config) if result.sql.strip() else []
        findings = [_to_revision_line(f, result.markers, lines) for f in findings]
        if result.error is not None:
            error = _revision_error(file, result)
            findings.append(_to_revision_line(error, {error.line: error.line}, lines))
        report.add(file, source, findings)


def _unique(paths: list[Path]) -> list[Path]:
    seen: dict[Path, Path] = {}
    for path in paths:
        seen.setdefault(path.resolve(), path)
    return list(seen.values())


def _to_revision_line(finding: Finding, markers: dict[int, int], lines: list[str]) -> Finding:
    """Move a finding from the offline SQL to the op call that emitted it (else line 1)."""
    line = markers.get(finding.line, 0) or 1
    text = lines[line - 1] if line <= len(lines) else ""
    return replace(finding, line=line, column=len(text) - len(text.lstrip()) + 1)


def _revision_error(file: str, result: alembic_offline.RevisionSQL) -> Finding:
    """A revision Alembic cannot render offline: an error if the script is broken, a
    warning if only offline mode fails (e.g. op.get_bind() reading data)."""
    rule = rules_by_name()["syntax-error"]
    if result.broken:
        message = f"This revision cannot be loaded ({result.error}); nothing in it was linted."
        return Finding(
            file, result.error_line, 1, rule.code, rule.name, "error", message, "Fix the revision script."
        )
    message = (
        f"Alembic's offline mode stopped here ({result.error}); statements from this line on were not linted."
    )
    return Finding(
        file,
        result.error_line,
        1,
        rule.code,
        rule.name,
        "warning",
        message,
        "Keep schema changes in op.* / op.execute() calls that render with --sql;"
        " move data reads (op.get_bind()) to a separate data migration.",
    )
