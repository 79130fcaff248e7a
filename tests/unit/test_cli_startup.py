"""`agentddl --help` and `agentddl <command> --help` start fast: they import the CLI
modules, typer and the standard library, never the work behind a command (a timing
assertion would be flaky on a loaded machine; the imports are what make it slow)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentddl.checks.cli.main import COMMANDS

HEAVY = ("psycopg", "alembic", "sqlalchemy", "pglast", "pydantic", "yaml", "rich", "markdown_it")
# Besides agentddl.checks.cli.*: the packages on the way there, and the error type main() catches.
ALLOWED_OWN = {
    "agentddl",
    "agentddl.checks",
    "agentddl.checks.cli",
    "agentddl.generator",
    "agentddl.generator.errors",
}


def imported_modules(*argv: str) -> set[str]:
    """Every module `python -m agentddl.checks.cli.main ARGV` imports, from -X importtime."""
    command = [sys.executable, "-X", "importtime", "-m", "agentddl.checks.cli.main", *argv]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # [0]: the header


@pytest.mark.parametrize("command", ["", *COMMANDS], ids=lambda c: c or "agentddl")
def test_help_imports_nothing_heavy(command: str) -> None:
    modules = imported_modules(*command.split(), "--help")
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"agentddl {command} --help imports {heavy[:10]}"
    own = {m for m in modules if m.split(".")[0] == "agentddl"}
    cli_modules = {m for m in own if m.startswith("agentddl.checks.cli.")}
    assert own - cli_modules <= ALLOWED_OWN, sorted(own - cli_modules - ALLOWED_OWN)


def test_version_imports_nothing_heavy() -> None:
    modules = imported_modules("--version")
    assert not [m for m in modules if m.split(".")[0] in HEAVY]
