"""A real git repository for the tests of what changed since a ref (core.changes,
lint --changed-since): `git(repo, ...)` runs git there, `new_repo(path)` makes one with
a committer set, on branch main."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """git's output, run in `repo`; a failure raises."""
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def new_repo(path: Path) -> Path:
    """An empty repository at `path` on branch main, with a committer."""
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    return path
