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


def run_cli(args: list[str], timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`agentddl <args>` in a new process, as a terminal HELP_WIDTH columns wide shows it:
    without colour, and without a database from the environment (a page shows what any
    reader's run prints)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "AGENTDDL_DSN", "AGENTDDL_SERVER")}
    env.update(COLUMNS=HELP_WIDTH, NO_COLOR="1", TERM="dumb")
    argv = [sys.executable, "-m", "agentddl.checks.cli.main", *args]
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def as_shown(output: str) -> str:
    """Printed output as a page shows it: no blank lines around it, no trailing spaces."""
    return "\n".join(line.rstrip() for line in output.strip("\n").splitlines())


def help_text(command: str) -> str:
    """`agentddl <command> --help` as a terminal 100 columns wide shows it, without colour."""
    result = run_cli([*command.split(), "--help"], timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"agentddl {command} --help failed: {result.stderr.strip()}")
    return as_shown(result.stdout)


def with_current_help(page: str) -> str:
    """`page` with every help block regenerated."""

    def block(match: re.Match[str]) -> str:
        command = match.group(2).replace("-", " ") if match.group(2) != "agentddl" else ""
        return f"{match.group(1)}```text\n{help_text(command)}\n```\n{match.group(4)}"

    return HELP_BLOCK.sub(block, page)


def command_pages(root: Path) -> list[Path]:
    """Every command page, by name."""
    return sorted((root / "docs" / "commands").glob("*.md"))


def command_files(root: Path) -> dict[str, str]:
    """Path -> text of every command page with its help block current."""
    return {
        str(p.relative_to(root)): with_current_help(p.read_text(encoding="utf-8"))
        for p in command_pages(root)
    }
