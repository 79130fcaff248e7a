"""The README is a landing page a newcomer reads in five minutes: it opens with the two
setup commands, says how to reach the `agentddl` command, and names and links every CLI
command (the commands come from `cli.main.COMMANDS`, so a new one must be added here)."""

from __future__ import annotations

import re

import typer
from profiles import ROOT

from agentddl.checks.cli import main as cli

README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 265  # ten commands, each with a few lines of real output


def registered_commands() -> list[str]:
    cli._register()
    group = typer.main.get_group(cli.app)
    return sorted(group.commands)


def test_commands_are_the_registered_ones() -> None:
    assert sorted(cli.COMMANDS) == registered_commands()
    assert {"generate", "apply", "lint", "trace", "verify", "audit", "prove"} <= set(cli.COMMANDS)


def test_readme_fits_in_five_minutes() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_every_command_is_named_and_linked_to_its_page() -> None:
    for command in cli.COMMANDS:
        assert f"agentddl {command}" in README, command
        page = f"docs/commands/{command}.md"
        assert f"]({page})" in README, f"README links no {page}"
        assert (ROOT / page).is_file(), page


def test_readme_opens_with_the_two_commands() -> None:
    first_block = README.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in first_block.strip().splitlines()]
    assert lines == ["make demo", "make test"]


def test_readme_says_how_to_reach_the_command_and_the_docs() -> None:
    assert "source .venv/bin/activate" in README
    assert "mkdocs serve" in README
    assert "pip install -e" in README
    # agentddl is not on PyPI: `pip install agentddl` would not resolve
    assert not re.search(r"pip install agentddl\b(?![-/\w])", README)


def test_every_link_to_a_local_file_resolves() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if "://" not in t]
    assert local, "no links found"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == []
