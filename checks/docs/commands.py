"""Each command page (`docs/commands/<command>.md`) is written by hand around one block
the generator keeps current: the command's `--help`, between `<!-- help: <command> -->`
and `<!-- /help -->`, captured from the real CLI at a fixed width."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HELP_BLOCK = re.compile(r"(<!-- help: ([a-z-]+) -->\n)(.*?)(<!-- /help -->)", re.S)
HELP_WIDTH = "100"


def help_text(command: str) -> str:
    """`agentddl <command> --help` as a terminal 100 columns wide shows it, without colour."""
    argv = [sys.executable, "-m", "agentddl.checks.cli.main", *command.split(), "--help"]
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    env.update(COLUMNS=HELP_WIDTH, NO_COLOR="1", TERM="dumb")
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"agentddl {command} --help failed: {result.stderr.strip()}")
    return "\n".join(line.rstrip() for line in result.stdout.strip("\n").splitlines())


def with_current_help(page: str) -> str:
    """`page` with every help block regenerated."""

    def block(match: re.Match[str]) -> str:
        command = match.group(2).replace("-", " ") if match.group(2) != "agentddl" else ""
        return f"{match.group(1)}```text\n{help_text(command)}\n```\n{match.group(4)}"

    return HELP_BLOCK.sub(block, page)


def command_files(root: Path) -> dict[str, str]:
    """Path -> text of every command page with its help block current."""
    pages = sorted((root / "docs" / "commands").glob("*.md"))
    return {str(p.relative_to(root)): with_current_help(p.read_text(encoding="utf-8")) for p in pages}
