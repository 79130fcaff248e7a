"""`[tool.agentddl]` in pyproject.toml or an `agentddl.toml`: typed, unknown keys rejected.

```toml
[tool.agentddl]
pg_version = 16            # target server major version (default 16)
profile = "schemas/default.yaml"   # or: take pg_version from an agentddl profile's engine
runner = "psql"            # or "alembic": whose transaction model the SQL runs under
lock_timeout = { required = true, max_ms = 10000 }
# with --schema-from: rules whose hazard grows with the table are info below the info_*
# sizes, warning below the warning_* ones (lint/sizes.py); the defaults:
table_size = { info_below_rows = 10000, warning_below_rows = 1000000,
               info_below_bytes = 8388608, warning_below_bytes = 1073741824 }
# production's row counts when no --sizes-from is given (a bare name is public's)
table_rows = { "agent.events" = 500000000, "flags" = 12 }
# with --schema-from DSN: how long each data check may run and wait for a lock
data_check_timeout = { statement_ms = 5000, lock_ms = 1000 }

[tool.agentddl.rules]
require-lock-timeout = "warning"   # "off" | "info" | "warning" | "error"

[tool.agentddl.options.some-rule-name]  # free-form per-rule options, read by that rule

[[tool.agentddl.lint.paths]]   # settings of the files under a glob (lint/path_globs.py)
path = "migrations/legacy/**"  # relative to this file; the most specific match wins
pg_version = 12                # also: runner, rules, options, lock_timeout, table_size
rules = { require-lock-timeout = "off" }
```
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from agentddl.checks.lint.path_globs import PathGlob
from agentddl.checks.lint.probe import ProbeTimeouts, RunProbe
from agentddl.checks.lint.sizes import SIZE_KEYS, SizeThresholds, TableSizes
from agentddl.checks.lint.types import RelationName, Rule, Runner, Severity
from agentddl.generator.errors import AgentDDLError

DEFAULT_PG_VERSION = 16
SUPPORTED_PG_VERSIONS = range(9, 19)
SEVERITY_CHOICES = ("off", "info", "warning", "error")
TOP_LEVEL_KEYS = (
    "pg_version",
    "profile",
    "runner",
    "rules",
    "lock_timeout",
    "options",
    "table_size",
    "table_rows",
    "data_check_timeout",
    "lint",
)
# What a [[tool.agentddl.lint.paths]] entry may set: what can differ from file to file.
PATH_KEYS = ("path", "pg_version", "runner", "rules", "lock_timeout", "options", "table_size")
LOCK_TIMEOUT_KEYS = ("required", "max_ms")
DATA_CHECK_TIMEOUT_KEYS = ("statement_ms", "lock_ms")


class ConfigError(AgentDDLError):
    """A configuration file or flag the linter cannot use (exit code 2)."""


@dataclass(frozen=True)
class LintConfig:
    """Everything a lint run needs besides the SQL. CLI flags override file values."""

    pg_version: int = DEFAULT_PG_VERSION
    runner: Runner = "psql"
    severities: dict[str, str] = field(default_factory=dict)  # rule name -> SEVERITY_CHOICES
    options: dict[str, Any] = field(default_factory=dict)  # handed to rules as Context.options
    table_size: SizeThresholds = field(default_factory=SizeThresholds)  # with table sizes
    sizes: TableSizes | None = None  # table_rows: production's sizes, without --sizes-from
    data_check_timeout: ProbeTimeouts = field(default_factory=ProbeTimeouts)  # the probe's
    probe: RunProbe | None = field(default=None, compare=False, repr=False)  # see lint/probe.py
    source: str | None = None  # the file it came from, for messages
    paths: tuple[PathSettings, ...] = ()  # [[tool.agentddl.lint.paths]], in file order

    def for_file(self, file: Path) -> LintConfig:
        """The settings of `file`: the most specific `paths` entry covering it (the later
        one of two as specific), else these."""
        matching = [
            (p.glob.specificity, n, p.config) for n, p in enumerate(self.paths) if p.glob.covers(file)
        ]
        if not matching:
            return self
        return replace(max(matching, key=lambda m: m[:2])[2], probe=self.probe)

    def severity(self, rule: type[Rule]) -> Severity | None:
        """The rule's severity in this run, None when it is off."""
        chosen = self.severities.get(rule.name)
        if chosen is None:
            return rule.severity if rule.enabled_by_default else None
        return None if chosen == "off" else cast(Severity, chosen)

    def with_overrides(self, pg_version: int | None, runner: str | None) -> LintConfig:
        """This config with command-line flags applied on top."""
        config = self
        if pg_version is not None:
            config = replace(config, pg_version=_check_version(pg_version, "--pg-version"))
        if runner is not None:
            config = replace(config, runner=_check_runner(runner, "--runner"))
        paths = tuple(replace(p, config=p.config.with_overrides(pg_version, runner)) for p in self.paths)
        return replace(config, paths=paths)


@dataclass(frozen=True)
class PathSettings:
    """One `[[tool.agentddl.lint.paths]]` entry: its glob and the settings of its files
    (the top-level ones with the entry's on top)."""

    glob: PathGlob
    config: LintConfig


def find_config_file(start: Path) -> Path | None:
    """The nearest agentddl.toml, or pyproject.toml with [tool.agentddl], upward from start."""
    for directory in (start.resolve(), *start.resolve().parents):
        candidate = directory / "agentddl.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and "agentddl" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def load_config(path: Path | None, known_rules: dict[str, type[Rule]]) -> LintConfig:
    """Read and validate a config file (None: defaults)."""
    if path is None:
        return LintConfig()
    text = read_text(path)
    data = _loads(path, text)
    prefix = "tool.agentddl." if path.name == "pyproject.toml" else ""
    table = data.get("tool", {}).get("agentddl", {}) if prefix else data
    return _validated(table, _Where(path, prefix, tuple(text.splitlines())), known_rules)


@dataclass(frozen=True)
class _Where:
    path: Path
    prefix: str
    lines: tuple[str, ...]  # the file's text, read once: keys are located in it
    start: int = 0  # the line a key is looked for from (a paths entry's header)

    def fail(self, key: str, message: str) -> ConfigError:
        line, column = _locate_key(self.lines, key.rsplit(".", 1)[-1], self.start)
        return ConfigError(f"{self.path}:{line}:{column}: {self.prefix}{key}: {message}")

    def unknown(self, key: str, choices: tuple[str, ...] | list[str]) -> ConfigError:
        leaf = key.rsplit(".", 1)[-1]
        close = difflib.get_close_matches(leaf, choices, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return self.fail(key, f"unknown key{hint}")


def _validated(
    table: dict[str, Any],
    where: _Where,
    known: dict[str, type[Rule]],
    base: LintConfig | None = None,
    keys: tuple[str, ...] = TOP_LEVEL_KEYS,
) -> LintConfig:
    """The config `table` declares, on top of `base` (a paths entry's: the top level's)."""
    for key in table:
        if key not in keys:
            raise where.unknown(key, keys)
    config = base or LintConfig(source=str(where.path))
    if "profile" in table and "pg_version" not in table:
        config = replace(config, pg_version=_profile_version(table["profile"], where))
    if "pg_version" in table:
        config = replace(config, pg_version=_check_version(table["pg_version"], where))
    if "runner" in table:
        config = replace(config, runner=_check_runner(table["runner"], where))
    severities = {**config.severities, **_severities(table.get("rules", {}), where, known)}
    options = {**config.options, **_options(table, where, known)}
    if "table_size" in table:
        config = replace(config, table_size=_table_size(table["table_size"], where))
    if "table_rows" in table:
        config = replace(config, sizes=_table_rows(table["table_rows"], where))
    if "data_check_timeout" in table:
        config = replace(config, data_check_timeout=_data_check_timeout(table["data_check_timeout"], where))
    config = replace(config, severities=severities, options=options)
    if "lint" in table:
        config = replace(config, paths=_paths(table["lint"], where, known, config))
    return config


def _paths(
    lint: Any, where: _Where, known: dict[str, type[Rule]], base: LintConfig
) -> tuple[PathSettings, ...]:
    """`[[tool.agentddl.lint.paths]]`: each entry validated like the top level (with
    PATH_KEYS only), its errors at its own lines."""
    if not isinstance(lint, dict) or set(lint) - {"paths"}:
        extra = sorted(set(lint) - {"paths"}) if isinstance(lint, dict) else []
        raise (
            where.unknown(f"lint.{extra[0]}", ("paths",)) if extra else where.fail("lint", "must be a table")
        )
    entries = lint.get("paths", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise where.fail("lint.paths", "must be an array of tables: [[tool.agentddl.lint.paths]]")
    headers = _entry_lines(where.lines)
    settings = []
    for number, entry in enumerate(entries):
        at = replace(
            where,
            prefix=f"{where.prefix}lint.paths[{number}].",
            start=headers[number] if number < len(headers) else 0,
        )
        pattern = entry.get("path")
        if not isinstance(pattern, str) or not pattern.strip("/"):
            raise at.fail("path", 'must be a glob of the files it covers, like "migrations/legacy/**"')
        rest = {k: v for k, v in entry.items() if k != "path"}
        config = _validated(rest, at, known, replace(base, paths=()), PATH_KEYS)
        settings.append(PathSettings(PathGlob(pattern, where.path.parent), config))
    return tuple(settings)


def _entry_lines(lines: Sequence[str]) -> list[int]:
    """The 0-based line of each `[[...lint.paths]]` header, in order."""
    header = re.compile(r"^\s*\[\[\s*(?:tool\.agentddl\.)?lint\.paths\s*\]\]")
    return [n for n, line in enumerate(lines) if header.match(line)]


def _severities(rules: Any, where: _Where, known: dict[str, type[Rule]]) -> dict[str, str]:
    if not isinstance(rules, dict):
        raise where.fail("rules", "must be a table of rule-name = severity")
    for name, value in rules.items():
        if name not in known:
            raise where.unknown(f"rules.{name}", sorted(known))
        if value not in SEVERITY_CHOICES:
            raise where.fail(f"rules.{name}", f"must be one of {', '.join(SEVERITY_CHOICES)}")
    return dict(rules)


def _options(table: dict[str, Any], where: _Where, known: dict[str, type[Rule]]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    per_rule = table.get("options", {})
    if not isinstance(per_rule, dict):
        raise where.fail("options", "must be a table of rule-name = {...}")
    for name, value in per_rule.items():
        if name not in known:
            raise where.unknown(f"options.{name}", sorted(known))
        policy = known[name].timeout_policy
        options[name] = _timeout_policy(value, where, f"options.{name}") if policy else value
    if "lock_timeout" in table:
        options["lock_timeout"] = _timeout_policy(table["lock_timeout"], where, "lock_timeout")
    return options


def _timeout_policy(value: Any, where: _Where, key: str) -> dict[str, Any]:
    """lock_timeout, or a rule's options table of the same shape: { required, max_ms }."""
    if not isinstance(value, dict):
        raise where.fail(key, "must be a table like { required = true, max_ms = 10000 }")
    for name, item in value.items():
        if name not in LOCK_TIMEOUT_KEYS:
            raise where.unknown(f"{key}.{name}", LOCK_TIMEOUT_KEYS)
        valid = isinstance(item, bool) if name == "required" else _positive_int(item)
        if not valid:
            expected = "true or false" if name == "required" else "a positive integer"
            raise where.fail(f"{key}.{name}", f"must be {expected}")
    return dict(value)


def _positive_ints(
    value: Any, where: _Where, option: str, keys: tuple[str, ...], like: str, unit: str = ""
) -> None:
    """`option` is a table of `keys` (a subset), each a positive integer."""
    if not isinstance(value, dict):
        raise where.fail(option, f"must be a table like {like}")
    for key, item in value.items():
        if key not in keys:
            raise where.unknown(f"{option}.{key}", keys)
        if not _positive_int(item):
            raise where.fail(f"{option}.{key}", f"must be a positive integer{unit}")


def _table_size(value: Any, where: _Where) -> SizeThresholds:
    _positive_ints(value, where, "table_size", SIZE_KEYS, "{ info_below_rows = 10000 }")
    limits = replace(SizeThresholds(), **value)
    for kind in ("rows", "bytes"):
        if getattr(limits, f"info_below_{kind}") > getattr(limits, f"warning_below_{kind}"):
            raise where.fail(f"table_size.info_below_{kind}", f"must not exceed warning_below_{kind}")
    return limits


def _table_rows(value: Any, where: _Where) -> TableSizes:
    if not isinstance(value, dict):
        raise where.fail("table_rows", 'must be a table like { "agent.events" = 500000000 }')
    rows: dict[RelationName, tuple[int | None, int | None]] = {}
    for key, item in value.items():
        if not isinstance(item, int) or isinstance(item, bool) or item < 0:
            raise where.fail(f"table_rows.{key}", "must be a row count (an integer, 0 or more)")
        schema, _, name = key.rpartition(".")
        rows[RelationName(schema or "public", name)] = (item, None)
    return TableSizes(f"config ({where.path.name})", rows)


def _data_check_timeout(value: Any, where: _Where) -> ProbeTimeouts:
    """{ statement_ms, lock_ms }: the data checks' statement_timeout and lock_timeout."""
    like = "{ statement_ms = 5000, lock_ms = 1000 }"
    _positive_ints(value, where, "data_check_timeout", DATA_CHECK_TIMEOUT_KEYS, like, " (milliseconds)")
    return ProbeTimeouts(**value)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _check_version(value: Any, where: _Where | str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in SUPPORTED_PG_VERSIONS:
        return value
    low, high = SUPPORTED_PG_VERSIONS[0], SUPPORTED_PG_VERSIONS[-1]
    message = f"must be a PostgreSQL major version {low}-{high}"
    if isinstance(where, str):
        raise ConfigError(f"{where}: {message}, not {value!r}")
    raise where.fail("pg_version", message)


def _profile_version(value: Any, where: _Where) -> int:
    """The engine version of an agentddl profile (path relative to the config file)."""
    from agentddl.generator.profile.load import load_profile

    if not isinstance(value, str):
        raise where.fail("profile", "must be the path of an agentddl profile (YAML)")
    path = where.path.parent / value
    if not path.is_file():
        raise where.fail("profile", f"{path}: no such file")
    return int(load_profile(path).engine.version)


def _check_runner(value: Any, where: _Where | str) -> Runner:
    if value in ("psql", "alembic"):
        return cast(Runner, value)
    if isinstance(where, str):
        raise ConfigError(f"{where}: must be 'psql' or 'alembic', not {value!r}")
    raise where.fail("runner", "must be 'psql' or 'alembic'")


def _read_toml(path: Path) -> dict[str, Any]:
    return _loads(path, read_text(path))


def _loads(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from None


def read_text(path: Path) -> str:
    """A file the user named (config, SQL, revision) as UTF-8 text; one-line ConfigError
    when it cannot be read or is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    return decode(data, str(path))


def decode(data: bytes, where: str) -> str:
    """`data` as UTF-8 text; a ConfigError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise ConfigError(f"{where}:{line}: not UTF-8 text (byte 0x{byte:02x}); save it as UTF-8") from None


def _locate_key(lines: Sequence[str], key: str, start: int = 0) -> tuple[int, int]:
    """Best-effort line and column of `key` in the file from line `start` (0-based) on
    (tomllib gives no positions)."""
    pattern = re.compile(rf'(^|[\s{{,])"?{re.escape(key)}"?\s*=')
    for number, line in enumerate(lines[start:], start=start + 1):
        match = pattern.search(line)
        if match:
            return number, match.start() + len(match.group(1)) + 1
    return start + 1, 1  # not written (a missing key): the top, or the entry's header
