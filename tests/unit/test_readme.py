"""The README documents every CLI command and opens with the two setup commands."""

from __future__ import annotations

import typer
from profiles import ROOT

from agentddl.checks.cli import main as cli

README = (ROOT / "README.md").read_text(encoding="utf-8")


def registered_commands() -> list[str]:
    cli._register()
    group = typer.main.get_group(cli.app)
    return sorted(group.commands)


def test_every_command_is_documented_in_the_readme() -> None:
    commands = registered_commands()
    assert {"generate", "apply", "lint"} <= set(commands)
    for command in commands:
        assert f"agentddl {command}" in README, command


def test_readme_opens_with_the_two_commands() -> None:
    first_block = README.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in first_block.strip().splitlines()]
    assert lines == ["make demo", "make test"]
