"""The linter as a library: `run(LintRequest(paths)) -> LintResult`, and
`LintResult.report()` for `agentddl.checks.core.report.render` (what `agentddl lint` does).

```python
from agentddl.checks.lint import LintRequest, run

result = run(LintRequest(["migrations/versions"], pg_version=15))
for finding in result.findings:
    print(finding.where, finding.code, finding.message)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report
from agentddl.checks.lint.config import ConfigError, LintConfig, find_config_file, load_config
from agentddl.checks.lint.inputs import LintedFile, lint_paths
from agentddl.checks.lint.probe import DataProbe, RunProbe
from agentddl.checks.lint.rules import all_rules, rules_by_name
from agentddl.checks.lint.sizes import TableSizes, with_sizes
from agentddl.checks.pg.schema import SchemaFacts


@dataclass(frozen=True)
class LintRequest:
    """What to lint and how. The settings are `config` when given, else the config file
    (`config_file`, else the nearest agentddl.toml or pyproject.toml with [tool.agentddl]
    upward from the working directory, else the defaults), with `pg_version` and
    `runner` on top."""

    paths: Sequence[str]  # SQL files, folders, Alembic revisions or environments; "-": stdin
    pg_version: int | None = None  # the target PostgreSQL major
    runner: str | None = None  # "psql" or "alembic": whose transaction model the SQL runs under
    config_file: Path | None = None
    config: LintConfig | None = None
    stdin: TextIO | None = None  # read for "-"
    # The database's schema before the migrations (`--schema-from`): tables, columns,
    # constraints (its own sizes are not used). None: rules judge the SQL alone. Build it
    # with pg.schema_sources.facts_from_file (schema.sql, profile) or, for a live
    # database, pg.schema_parse.parse_schema of db.schema_read.read_schema(dsn).
    schema: SchemaFacts | None = None
    # Production's table sizes (`--sizes-from`): lint.sizes.TableSizes; None: the
    # config's table_rows, else none (lint/sizes.py).
    sizes: TableSizes | None = None
    # Asks the schema's database whether a data-dependent statement fails on its rows
    # (lint/probe.py; db.data_probe.ReadOnlyProbe). None: such statements are warnings.
    probe: DataProbe | None = None
    # A git ref: lint only the files added or changed since it (`--changed-since`).
    changed_since: str | None = None
    # The Alembic revisions the database is at (its alembic_version rows; with
    # `--schema-from DSN`: db.alembic_version.applied_revisions). None: not known.
    applied_revisions: tuple[str, ...] | None = None

    def settings(self) -> LintConfig:
        """The configuration this request lints with (a ConfigError when it is unusable)."""
        config = self.config or self._file_config()
        return config.with_overrides(self.pg_version, self.runner)

    def _file_config(self) -> LintConfig:
        if self.config_file is not None and not self.config_file.is_file():
            raise ConfigError(f"{self.config_file}: no such config file")
        return load_config(self.config_file or find_config_file(Path.cwd()), rules_by_name())


@dataclass(frozen=True)
class LintResult:
    """Every linted input with its findings, and the settings used."""

    linted: tuple[LintedFile, ...]
    config: LintConfig
    schema: SchemaFacts | None = None
    sizes: TableSizes | None = None

    @property
    def findings(self) -> list[Finding]:
        """Every finding, file by file in the order linted, by position within a file."""
        return [finding for file in self.linted for finding in file.findings]

    @property
    def files(self) -> int:
        return len(self.linted)

    @property
    def exit_code(self) -> int:
        """0 clean (warnings and info allowed), 1 with any error finding."""
        return 1 if any(f.is_error for f in self.findings) else 0

    def about(self) -> dict[str, object]:
        about: dict[str, object] = {"files": self.files}
        if self.schema is not None:
            about["schema_from"] = self.schema.source
        if self.schema is not None or self.sizes is not None:
            about["sizes"] = self.sizes.source if self.sizes is not None else "none"
        if self.config.probe is not None:
            about["data_checked_on"] = self.config.probe.source
        return about

    def summary_line(self) -> str:
        files = f"{self.files} file{'s' if self.files != 1 else ''}"
        findings = self.findings
        if not findings:
            return f"{files} linted: no findings."
        errors = sum(1 for f in findings if f.is_error)
        return f"{files} linted: {errors} error(s), {len(findings) - errors} warning(s)/info."

    def report(self) -> Report:
        """The result as every reporter reads it (text shows each finding's source line)."""
        return Report(
            tool="lint",
            findings=self.findings,
            rules=all_rules(),
            about=self.about(),
            sources={file.path: file.text for file in self.linted},
            summary=self.summary_line(),
        )


def run(request: LintRequest) -> LintResult:
    """Lint the request's inputs. User mistakes (a missing path, nothing to lint, an
    unreadable or invalid config or SQL file) raise ConfigError (exit code 2)."""
    settings = request.settings()
    probe = RunProbe(request.probe, settings.data_check_timeout) if request.probe is not None else None
    config = replace(settings, probe=probe)
    sizes = request.sizes or config.sizes
    schema = with_sizes(request.schema, sizes)
    linted = lint_paths(
        request.paths, config, request.stdin, schema, request.changed_since, request.applied_revisions
    )
    return LintResult(tuple(linted), config, request.schema, sizes)
