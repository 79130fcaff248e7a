"""Config loading: typed, unknown keys rejected with a location and a suggestion."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.lint.config import ConfigError, find_config_file, load_config
from agentddl.checks.lint.probe import ProbeTimeouts
from agentddl.checks.lint.rules import rules_by_name


def _load(path: Path) -> object:
    return load_config(path, rules_by_name())


def test_values_are_read(tmp_path: Path) -> None:
    path = tmp_path / "agentddl.toml"
    path.write_text(
        'pg_version = 13\nrunner = "alembic"\nlock_timeout = { required = false, max_ms = 900 }\n'
        '[rules]\nrequire-lock-timeout = "warning"\n'
    )
    config = load_config(path, rules_by_name())
    assert (config.pg_version, config.runner) == (13, "alembic")
    assert config.options["lock_timeout"] == {"required": False, "max_ms": 900}
    assert config.severity(rules_by_name()["require-lock-timeout"]) == "warning"
    assert config.with_overrides(16, None).pg_version == 16


def test_data_check_timeout_is_read_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "agentddl.toml"
    path.write_text("data_check_timeout = { statement_ms = 250 }\n")
    assert load_config(path, rules_by_name()).data_check_timeout == ProbeTimeouts(250, 1000)
    assert load_config(None, rules_by_name()).data_check_timeout == ProbeTimeouts(5000, 1000)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lock_timeout = { max_ms = 0 }\n", "1:18: lock_timeout.max_ms: must be a positive integer"),
        (
            "lock_timeout = { requird = true }\n",
            "lock_timeout.requird: unknown key (did you mean 'required'?)",
        ),
        ('runner = "flyway"\n', "1:1: runner: must be 'psql' or 'alembic'"),
        ("pg_version = 8\n", "pg_version: must be a PostgreSQL major version 9-18"),
        ('[rules]\nrequire-lock-timeout = "loud"\n', "2:1: rules.require-lock-timeout: must be one of"),
        ("[options.no-such-rule]\nx = 1\n", "options.no-such-rule: unknown key"),
        (
            '[options.require-statement-timeout]\nmax_ms = "abc"\n',
            "options.require-statement-timeout.max_ms: must be a positive integer",
        ),
        (
            "[options.require-statement-timeout]\nrequired = 1\n",
            "options.require-statement-timeout.required: must be true or false",
        ),
        ("pg_version = \n", "agentddl.toml: "),
        (
            'pg_version = 16\ndata_check_timeout = { lock_ms = "1s" }\n',
            "2:24: data_check_timeout.lock_ms: must be a positive integer (milliseconds)",
        ),
        ("data_check_timeout = 5\n", "1:1: data_check_timeout: must be a table like"),
        (
            "data_check_timeout = { statement = 5 }\n",
            "data_check_timeout.statement: unknown key (did you mean 'statement_ms'?)",
        ),
        (
            '[[lint.paths]]\npath = "a/**"\ndata_check_timeout = { lock_ms = 5 }\n',
            "lint.paths[0].data_check_timeout: unknown key",
        ),
    ],
)
def test_bad_values_are_config_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "agentddl.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        _load(path)
    assert message in str(error.value)
    assert error.value.exit_code == 2


def test_config_is_found_upward_and_pyproject_needs_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_config_file(nested) is None
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.agentddl]\npg_version = 14\n")
    found = find_config_file(nested)
    assert found == tmp_path / "a" / "pyproject.toml"
    assert load_config(found, rules_by_name()).pg_version == 14


def test_pg_version_from_a_profile(tmp_path: Path) -> None:
    (tmp_path / "profile.yaml").write_text("profile: 1\nname: p\nengine: {version: 14}\n")
    path = tmp_path / "agentddl.toml"
    path.write_text('profile = "profile.yaml"\n')
    assert load_config(path, rules_by_name()).pg_version == 14
    path.write_text('profile = "profile.yaml"\npg_version = 17\n')
    assert load_config(path, rules_by_name()).pg_version == 17  # explicit wins
    path.write_text('profile = "missing.yaml"\n')
    with pytest.raises(ConfigError, match=r"missing\.yaml: no such file"):
        _load(path)
