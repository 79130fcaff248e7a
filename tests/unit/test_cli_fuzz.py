"""Every command, fed random and corrupted input (profiles, migrations, query files, config
files, DSNs, option values, binary files, folders, missing files), fails the one way a user
mistake fails: exit code 2, one `agentddl: ...` line on stderr (after any `agentddl: ...`
progress lines), never a traceback, nothing on stdout, nothing written.

The one deliberate exception: `lint` of SQL it can read but not parse reports a
`syntax-error` finding, so it exits 1 (a migration that does not parse is a finding about
the migration, not a usage error); `test_lint_reports_unparsable_sql_as_a_finding`.

The commands and their options come from the CLI itself (`cli.main.COMMANDS` and each
command's parameters), so a new command or option is fuzzed without editing this file.
Nothing reaches a network: every DSN is unparsable or names 127.0.0.1 on a port held by a
socket that never listens (refused at once), and every command that could start an
embedded server gets such a `--server`.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import io
import json
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import typer
from fuzz_inputs import (
    ANY_FILES,
    ARG_TEXT,
    BAD_CONFIGS,
    GOOD_PROFILE,
    NOT_UTF8,
    PROFILE_FILES,
    QUERY_BLOCKS,
    UNPARSABLE_SQL,
    UNREADABLE_FILES,
    bad_numbers,
    refused_dsns,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentddl.checks.cli import main as cli

# The module's budget is ~40 s on a loaded 2-core machine: a few examples per command,
# different on every run (no example database: nothing is written to the checkout).
# AGENTDDL_FUZZ_SCALE=50 runs fifty times as many, to hunt for crashes.
SCALE = int(os.environ.get("AGENTDDL_FUZZ_SCALE", "1"))


def fuzz(examples: int) -> settings:
    slow = [HealthCheck.too_slow]
    return settings(max_examples=examples * SCALE, deadline=None, database=None, suppress_health_check=slow)


DSN_PARAMS = ("server", "dsn")  # the shared options (cli/options.py) naming a database or server
FILE_PARAMS = ("paths",)  # str parameters that are file paths (lint's PATH...)
# (command, parameter) where any file that reads as text is linted, not refused.
READABLE_IS_A_FINDING = {("lint", "paths")}


# Bound, never listening: a connection to this port is refused at once (and no other
# process can start listening on it while the module runs).
_HELD = socket.socket()
_HELD.bind(("127.0.0.1", 0))
atexit.register(_HELD.close)
REFUSED_PORT: int = _HELD.getsockname()[1]
REFUSED = f"postgresql://agentddl@127.0.0.1:{REFUSED_PORT}/none?connect_timeout=2"


@pytest.fixture(autouse=True, scope="module")
def no_database_from_the_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AGENTDDL_DSN", "AGENTDDL_SERVER", "PGHOST", "PGPORT", "PGSERVICE"):
            patch.delenv(name, raising=False)
        yield


def command_params(command: str) -> list[Any]:
    cli._register()
    group = typer.main.get_command(cli.app)
    return list(group.commands[command].params)  # type: ignore[attr-defined]


def kind_of(param: Any) -> str:
    annotation = param.type_descriptor.annotation
    inner = get_args(annotation)[0] if get_origin(annotation) is list else annotation
    if param.name in DSN_PARAMS:
        return "dsn"
    if inner is bool:
        return "flag"
    if inner is Path or param.name in FILE_PARAMS:
        return "file"
    if inner in (int, float):
        return inner.__name__
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        return "choice"
    return "text"


def commands_with(*names: str) -> list[str]:
    return [c for c in cli.COMMANDS if any(p.name in names for p in command_params(c))]


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


def run_cli(argv: list[str], stdin: bytes = b"") -> Outcome:
    """`agentddl ARGV` in this process, with stdin, stdout and stderr of its own."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
        code = cli.main(argv)
    return Outcome(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(data: bytes) -> Iterator[None]:
    saved, sys.stdin = sys.stdin, io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


def tree(root: Path) -> dict[str, tuple[bool, int, int]]:
    """Every path under root: (is a folder, size, mtime): the same before and after a run."""
    found: dict[str, tuple[bool, int, int]] = {}
    for path in root.rglob("*"):
        stat = path.lstat()
        found[str(path.relative_to(root))] = (path.is_dir(), stat.st_size, stat.st_mtime_ns)
    return found


@contextlib.contextmanager
def scratch_cwd() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name, contextlib.chdir(name):
        yield Path(name)


def assert_refused(outcome: Outcome, argv: list[str]) -> list[str]:
    """Exit 2, no traceback, stderr only `agentddl: ` lines, stdout empty; the error lines."""
    lines = outcome.err.splitlines()
    assert "Traceback" not in outcome.err, outcome.err
    assert outcome.code == 2, (argv, outcome)
    assert lines and outcome.err.endswith("\n"), (argv, outcome)
    assert all(line.startswith("agentddl: ") for line in lines), (argv, outcome.err)
    assert outcome.out == "", (argv, outcome.out[:500])
    return lines


def option_name(param: Any) -> str:
    return max(param.opts, key=len)


def draw_value(draw: st.DrawFn, command: str, param: Any, cwd: Path, index: int) -> str:
    """One bad (or, now and then, acceptable) value for `param`."""
    kind = kind_of(param)
    if kind == "dsn":
        return draw(refused_dsns(REFUSED_PORT))[0]
    if kind == "file":
        files = UNREADABLE_FILES if (command, param.name) in READABLE_IS_A_FINDING else ANY_FILES
        extension = draw(st.sampled_from(["sql", "py", "yaml", "toml", "json", "txt"]))
        return draw(files).make(cwd / f"{param.name}{index}.{extension}")
    if kind in ("int", "float"):
        return draw(bad_numbers(floats=kind == "float"))
    if kind == "choice":
        choices = [c.value for c in param.type_descriptor.choices]
        return draw(st.one_of(ARG_TEXT, st.sampled_from(choices)))
    return draw(ARG_TEXT)


@st.composite
def bad_command_lines(draw: st.DrawFn, command: str, cwd: Path) -> list[str]:
    """`command` with every required parameter, and some optional ones, given bad values;
    every DSN option given one that fails at once (so no server is started or reached)."""
    options: list[str] = []
    arguments: list[str] = []
    for param in command_params(command):
        kind = kind_of(param)
        if not (param.required or kind == "dsn" or draw(st.booleans())):
            continue
        if kind == "flag":
            options.append(option_name(param))
            continue
        count = draw(st.integers(1, 2)) if param.multiple or param.nargs == -1 else 1
        values = [draw_value(draw, command, param, cwd, i) for i in range(count)]
        if param.param_type_name == "argument":
            arguments += values
        else:
            options += [f"{option_name(param)}={value}" for value in values]
    return [command, *options, *(["--", *arguments] if arguments else [])]


@pytest.mark.parametrize("command", cli.COMMANDS)
@fuzz(12)
@given(data=st.data())
def test_bad_input_is_one_line_exit_2_and_writes_nothing(command: str, data: st.DataObject) -> None:
    with scratch_cwd() as cwd:
        argv = data.draw(bad_command_lines(command, cwd))
        stdin = data.draw(st.one_of(st.just(b""), NOT_UTF8))
        before = tree(cwd)
        outcome = run_cli(argv, stdin)
        assert_refused(outcome, argv)
        assert tree(cwd) == before, argv


def _acceptable(param: Any) -> str:
    """A value a required parameter accepts (a file: a valid migration; --out: a new folder)."""
    kind = kind_of(param)
    if kind == "choice":
        return str(param.type_descriptor.choices[0].value)
    if kind == "file":
        return {"out": "out", "profiles": "profile.yaml"}.get(param.name, "ok.sql")
    return {"int": "1", "float": "1", "text": "x", "dsn": REFUSED}.get(kind, "x")


# Combinations a command refuses before any connection, by design:
# --server holds the fresh install --dsn is compared with (check: the scratch copy of --clone)
SERVER_NEEDS_DSN = {"generate", "diff", "check"}
DSN_REPLACES_PROFILE = {"trace"}  # --dsn copies the user's schema instead of a profile's


def benign_command_line(command: str, cwd: Path, **given: str) -> list[str]:
    """`command` with the `given` parameter values and an acceptable value for every other
    required one; a command that can reach a server gets the refused --server."""
    (cwd / "ok.sql").write_text("SELECT 1;\n")
    options: list[str] = []
    arguments: list[str] = []
    for param in command_params(command):
        if param.name in given:
            value = given[param.name]
        elif param.name == "server" and not {"dsn", "server"} & set(given):
            if command in SERVER_NEEDS_DSN:
                continue
            value = REFUSED
        elif param.required:
            value = _acceptable(param)
        else:
            continue
        if param.param_type_name == "argument":
            arguments.append(value)
        else:
            options.append(f"{option_name(param)}={value}")
    return [command, *options, *(["--", *arguments] if arguments else [])]


@pytest.mark.parametrize("command", commands_with("profile"))
@fuzz(10)
@given(data=st.data())
def test_bad_profile_is_named_in_the_one_line(command: str, data: st.DataObject) -> None:
    """Random YAML, the default profile with a wrong type, an unknown key or `name` left
    out, its bytes damaged, not UTF-8, empty, a folder, missing: the error names the file."""
    with scratch_cwd() as cwd:
        profile = data.draw(PROFILE_FILES).make(cwd / "profile.yaml")
        argv = benign_command_line(command, cwd, profile=profile)
        before = tree(cwd)
        lines = assert_refused(run_cli(argv), argv)
        assert lines[-1].startswith(f"agentddl: {profile}"), (argv, lines)
        assert tree(cwd) == before


def dsn_options() -> list[tuple[str, str]]:
    return [(c, p.name) for c in cli.COMMANDS for p in command_params(c) if p.name in DSN_PARAMS]


@pytest.mark.parametrize(("command", "option"), dsn_options())
@fuzz(6)
@given(dsn=refused_dsns(REFUSED_PORT))
def test_bad_dsn_fails_at_once_in_one_line_without_its_password(
    command: str, option: str, dsn: tuple[str, str]
) -> None:
    with scratch_cwd() as cwd:
        (cwd / "profile.yaml").write_text(json.dumps(GOOD_PROFILE))
        has_profile = any(p.name == "profile" for p in command_params(command))
        given = {option: dsn[0]}
        if has_profile and not (option == "dsn" and command in DSN_REPLACES_PROFILE):
            given["profile"] = "profile.yaml"
        if option == "server" and command in SERVER_NEEDS_DSN:
            given["dsn"] = dsn[0]
        argv = benign_command_line(command, cwd, **given)
        lines = assert_refused(run_cli(argv), argv)
        assert "invalid DSN" in lines[-1] or "cannot connect to PostgreSQL" in lines[-1], lines
        if dsn[1]:
            assert dsn[1] not in "\n".join(lines)


@fuzz(12)
@given(config=BAD_CONFIGS.map(str.encode) | NOT_UTF8)
def test_bad_lint_config_is_one_line(config: bytes) -> None:
    with scratch_cwd() as cwd:
        (cwd / "ok.sql").write_text("SELECT 1;\n")
        (cwd / "agentddl.toml").write_bytes(config)
        for argv in (["lint", "ok.sql"], ["lint", "--config", "agentddl.toml", "ok.sql"]):
            lines = assert_refused(run_cli(argv), argv)
            assert "agentddl.toml" in lines[-1], lines


@pytest.mark.parametrize("command", commands_with("queries"))
@fuzz(8)
@given(queries=st.one_of(QUERY_BLOCKS.map(str.encode), NOT_UTF8, st.just(b"")))
@example(queries=b'-- name: q(a)\n-- example: a = 1\n"\xc2\x85\n')  # pglast quotes the token: a NEL
def test_bad_query_file_is_one_line(command: str, queries: bytes) -> None:
    with scratch_cwd() as cwd:
        (cwd / "queries.sql").write_bytes(queries)
        (cwd / "profile.yaml").write_text(json.dumps(GOOD_PROFILE))
        argv = benign_command_line(command, cwd, queries="queries.sql", profile="profile.yaml")
        assert_refused(run_cli(argv), argv)


@fuzz(15)
@given(sql=UNPARSABLE_SQL, via_stdin=st.booleans())
def test_lint_reports_unparsable_sql_as_a_finding(sql: str, via_stdin: bool) -> None:
    """Readable SQL that does not parse is a syntax-error finding (exit 1), by design."""
    with scratch_cwd() as cwd:
        (cwd / "migration.sql").write_text(sql, encoding="utf-8")
        argv = ["lint", "-" if via_stdin else "migration.sql", "--format", "json"]
        outcome = run_cli(argv, sql.encode())
        assert (outcome.code, outcome.err) == (1, ""), (argv, outcome)
        names = {finding["name"] for finding in json.loads(outcome.out)["findings"]}
        assert "syntax-error" in names, names


FLOAT_OPTIONS = [
    (command, param.opts[0])
    for command in cli.COMMANDS
    for param in command_params(command)
    if kind_of(param) == "float"
]


@pytest.mark.parametrize(("command", "option"), FLOAT_OPTIONS)
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_number_option_refuses_nan_infinity_and_negatives(command: str, option: str, value: str) -> None:
    """click's ranges let nan and inf through (every comparison with nan is false)."""
    outcome = run_cli([command, f"{option}={value}"])
    assert outcome.code == 2 and outcome.out == "", outcome
    assert outcome.err.startswith(f"agentddl: Invalid value for '{option}': expected a number of "), (
        outcome.err
    )


# Options that take a database or a file (--schema-from, --sizes-from) or only a database
# (check's --clone): a DSN that does not parse, or names nowhere, is refused like --dsn's.
SOURCE_DSN_PARAMS = ("schema_from", "sizes_from", "clone")


def source_dsn_options() -> list[tuple[str, str]]:
    return [(c, p.name) for c in cli.COMMANDS for p in command_params(c) if p.name in SOURCE_DSN_PARAMS]


@pytest.mark.parametrize(("command", "option"), source_dsn_options())
@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://app@127.0.0.1:1/db?sslmode",  # a query parameter without "=": does not parse
        "postgresql://app:pw-secret@127.0.0.1:{port}/db?connect_timeout=2",
        "host=127.0.0.1 port={port} user=app password=pw-secret connect_timeout=2",
    ],
)
def test_a_bad_database_source_is_one_line_without_its_password(command: str, option: str, dsn: str) -> None:
    with scratch_cwd() as cwd:
        argv = benign_command_line(command, cwd, **{option: dsn.format(port=REFUSED_PORT)})
        lines = assert_refused(run_cli(argv), argv)
        assert any(why in lines[-1] for why in ("invalid DSN", "cannot connect", "Connection refused")), lines
        assert "pw-secret" not in "\n".join(lines)
