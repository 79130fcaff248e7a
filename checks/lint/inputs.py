"""Lint what the user named: SQL files, folders, stdin, Alembic revisions and environments."""

from __future__ import annotations

import configparser
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from agentddl.checks.alembic import offline as alembic_offline
from agentddl.checks.core.changes import changed_since
from agentddl.checks.lint.config import ConfigError, LintConfig, decode, read_text
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.revision_order import OrderProblem, order_problems, revision_line
from agentddl.checks.lint.rules import rules_by_name
from agentddl.checks.lint.types import Finding
from agentddl.checks.pg.schema import SchemaFacts

STDIN = "-"
STDIN_NAME = "<stdin>"
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "build"}


@dataclass(frozen=True)
class LintedFile:
    """One linted input and its findings."""

    path: str  # as the user named it; "<stdin>" for standard input
    text: str  # what the findings' lines refer to (for a revision: the Python script)
    findings: tuple[Finding, ...]


def lint_paths(
    paths: Sequence[str],
    config: LintConfig,
    stdin: TextIO | None = None,
    schema: SchemaFacts | None = None,
    since: str | None = None,
    applied: Sequence[str] | None = None,
) -> list[LintedFile]:
    """Lint every input, SQL first in the order named, then the Alembic revisions together,
    each against `schema` (the database before it, when known). A path that does not
    exist, or inputs that hold nothing to lint, are usage errors. With `since` (a git
    ref), only the files added or changed since it are linted (stdin always is); the
    other revisions are still read with them, as the chain they belong to. The revisions
    of each folder named are also judged as a graph (heads; `applied`: the Alembic
    versions the database is at, its alembic_version rows, when known)."""
    changed = _changed(paths, since)
    linted: list[LintedFile] = []
    revisions: list[Path] = []
    chains: dict[str, list[Path]] = {}  # a folder named -> the revisions found in it
    for path in paths:
        if path == STDIN:
            text = _read_stdin(stdin)
            linted.append(LintedFile(STDIN_NAME, text, tuple(lint(text, STDIN_NAME, config, schema=schema))))
            continue
        for kind, found in _expand(Path(path)):
            if kind == "sql":
                if changed is not None and found.resolve() not in changed:
                    continue
                text = read_text(found)
                findings = lint(text, str(found), config.for_file(found), schema=schema)
                linted.append(LintedFile(str(found), text, tuple(findings)))
            else:
                revisions.append(found)
                if Path(path).is_dir():
                    chains.setdefault(path, []).append(found)
    if revisions and (changed is None or any(path.resolve() in changed for path in revisions)):
        problems = [p for chain in chains.values() for p in order_problems(_unique(chain), applied, changed)]
        linted.extend(_lint_revisions(_unique(revisions), config, schema, changed, problems))
    if not linted and changed is None:
        searched = ", ".join(paths)
        raise ConfigError(f"{searched}: no .sql file or Alembic revision found (searched recursively)")
    return linted


def _changed(paths: Sequence[str], since: str | None) -> set[Path] | None:
    """The files changed since the ref `since` under the named paths, resolved (None: no ref)."""
    if since is None:
        return None
    files = [Path(path) for path in paths if path != STDIN]
    return {path.resolve() for path in changed_since(since, files)} if files else set()


def _read_stdin(stdin: TextIO | None) -> str:
    if stdin is None:
        return ""
    buffer = getattr(stdin, "buffer", None)  # bytes when there are: decoded as UTF-8 whatever the locale
    if buffer is not None:
        return decode(buffer.read(), STDIN_NAME)
    try:
        return stdin.read()
    except UnicodeDecodeError as error:
        raise ConfigError(f"{STDIN_NAME}: not UTF-8 text ({error.reason})") from None


def _expand(path: Path) -> Iterator[tuple[str, Path]]:
    if not path.exists():
        raise ConfigError(f"{path}: no such file or directory")
    if path.is_file():
        yield ("revision" if path.suffix == ".py" else "sql"), path
    elif alembic_offline.is_environment(path):
        for folder in _environment_versions(path):
            yield from (("revision", p) for p in alembic_offline.revision_files([folder]))
    else:
        for child in sorted(path.iterdir()):
            if child.is_dir() and child.name not in _SKIP_DIRS:
                yield from _expand(child)
            elif child.is_file() and child.suffix == ".sql":
                yield "sql", child
            elif child.is_file() and child.suffix == ".py" and _looks_like_revision(child):
                yield "revision", child


def _environment_versions(path: Path) -> list[Path]:
    try:
        return alembic_offline.environment_versions(path)
    except (configparser.Error, UnicodeDecodeError, OSError) as error:
        detail = " ".join(str(error).split())  # configparser's messages span lines
        raise ConfigError(f"{path / 'alembic.ini'}: cannot read: {detail}") from None


def _looks_like_revision(path: Path) -> bool:
    """A loose Alembic revision script: module-level `revision = "..."` and an upgrade()."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return "def upgrade(" in text and alembic_offline.revision_identity(path) is not None


def _lint_revisions(
    revisions: list[Path],
    config: LintConfig,
    schema: SchemaFacts | None,
    changed: Collection[Path] | None,
    problems: list[OrderProblem],
) -> Iterator[LintedFile]:
    """Each revision's findings, with the `problems` of their order (only the `changed`
    ones' when given: the others are rendered with them, as their chain)."""
    sources = {path: read_text(path) for path in revisions}  # unreadable: a usage error, before Alembic
    named = {path.resolve(): path for path in revisions}
    ordering: dict[Path, list[Finding]] = {}
    for problem in problems:
        path = named[problem.path.resolve()]
        lines = sources[path].splitlines()
        said = (problem.message, problem.fix)
        found = _revision_finding(
            problem.rule, str(path), revision_line(sources[path]), said, config.for_file(path), lines
        )
        if found is not None:
            ordering.setdefault(path, []).append(found)
    for result in alembic_offline.offline_sql(revisions):
        if changed is not None and result.path.resolve() not in changed:
            continue
        file, settings = str(result.path), config.for_file(result.path)
        lines = sources[result.path].splitlines()
        alembic_config = replace(settings, runner="alembic")
        findings = lint(result.sql, file, alembic_config, schema=schema) if result.sql.strip() else []
        findings = [_to_revision_line(f, result.markers, lines) for f in findings]
        if result.error is not None:
            error = _revision_error(file, result, settings, lines)
            if error is not None:
                findings.append(_to_revision_line(error, {result.error_line: result.error_line}, lines))
        findings.extend(ordering.get(result.path, ()))
        yield LintedFile(file, sources[result.path], tuple(findings))


def _unique(paths: list[Path]) -> list[Path]:
    seen: dict[Path, Path] = {}
    for path in paths:
        seen.setdefault(path.resolve(), path)
    return list(seen.values())


def _to_revision_line(finding: Finding, markers: dict[int, int], lines: list[str]) -> Finding:
    """Move a finding from the offline SQL to the op call that emitted it (else line 1)."""
    line = markers.get(finding.line or 0, 0) or 1
    text = lines[line - 1] if line <= len(lines) else ""
    return replace(finding, line=line, column=len(text) - len(text.lstrip()) + 1)


def _revision_error(
    file: str, result: alembic_offline.RevisionSQL, config: LintConfig, lines: list[str]
) -> Finding | None:
    """A revision the linter could not read to the end: `syntax-error` when the script is
    not valid Python, else `unreadable-revision` (an import fails, or offline rendering
    stops, e.g. at op.get_bind()). Both are errors unless configured otherwise or
    ignored in the revision (`# agentddl: ignore[unreadable-revision] reason` on or
    above that line, or `ignore-file[...]`); None when switched off or ignored."""
    name = "syntax-error" if result.broken else "unreadable-revision"
    if result.broken:
        message = f"This revision cannot be loaded ({result.error}); nothing in it was linted."
        fix = "Fix the revision script."
    else:
        message = (
            f"Alembic's offline mode stopped here ({result.error}); this line and everything "
            "after it in upgrade() were not linted."
        )
        fix = (
            "Keep schema changes in op.* / op.execute() calls that render with --sql;"
            " move data reads (op.get_bind()) to a separate data migration."
        )
    return _revision_finding(name, file, result.error_line, (message, fix), config, lines)


def _revision_finding(
    name: str, file: str, line: int, said: tuple[str, str], config: LintConfig, lines: list[str]
) -> Finding | None:
    """The finding of a rule judged on a revision's script (message, fix), at `line`;
    None when the rule is off or an ignore comment in the script covers it there."""
    rule = rules_by_name()[name]
    severity = config.severity(rule)
    if severity is None or _ignored_in_revision(lines, line, name):
        return None
    message, fix = said
    return rule.finding(message, fix, severity=severity, file=file, line=line, column=1)


_PY_SUPPRESSION = re.compile(r"#\s*agentddl:\s*ignore(-file)?\s*\[([^\]]*)\]")


def _ignored_in_revision(lines: list[str], line: int, name: str) -> bool:
    """An ignore comment in the revision's Python source covers `name` at `line`."""
    for number, text in enumerate(lines, start=1):
        for file_wide, names in _PY_SUPPRESSION.findall(text):
            covers = file_wide or number in (line, line - 1)
            if covers and name in [n.strip() for n in names.split(",")]:
                return True
    return False
