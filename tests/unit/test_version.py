"""One version, declared once in pyproject.toml: `agentddl --version` prints it (from the
installed metadata: a bump without `make reinstall` fails here), CHANGELOG.md has its
section, and `make check` gives mypy the strict editable install built for it (the
Makefile derives the path instead of spelling a version)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DECLARED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_the_cli_prints_the_declared_version() -> None:
    command = [sys.executable, "-m", "agentddl.checks.cli.main", "--version"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"agentddl {DECLARED}\n", "")


def test_the_changelog_has_the_declared_version_and_an_unreleased_section() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[:2] == ["Unreleased", DECLARED], headings
    assert f"## [{DECLARED}] - " in changelog


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_check_types_the_install_of_the_declared_version() -> None:
    result = subprocess.run(
        ["make", "-n", "check"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    paths = re.findall(r"MYPYPATH=(\S+)", result.stdout)
    assert paths == [f"build/__editable__.agentddl-{DECLARED}-py3-none-any"]
    assert (ROOT / paths[0] / "agentddl" / "checks").is_dir(), "run make reinstall"
