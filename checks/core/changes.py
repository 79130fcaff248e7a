"""Which files changed since a git ref: what `--changed-since REF` narrows a check to.

`changed_since(ref, paths)` asks git for the files added or modified on this branch since
`ref` (`git diff --name-only --diff-filter=AM REF...HEAD`), plus what is not committed yet
(staged or not, and new untracked files git does not ignore), and keeps those under the
given paths. A ref git does not know, a folder outside any git repository, or no git at
all is an `AgentDDLError`: one line, exit 2.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from agentddl.generator.errors import AgentDDLError

OPTION = "--changed-since"


def changed_since(ref: str, paths: Sequence[Path]) -> list[Path]:
    """The files under `paths` added or changed since `ref` (committed on this branch, or
    not committed yet), each spelled as the path it was found under plus its relative
    part (`migrations/versions/0002_x.py` for `migrations/versions`), sorted; files
    deleted since are not listed."""
    where = _git_folder(paths)
    top = Path(_git(where, "rev-parse", "--show-toplevel").strip())
    if not ref or ref.startswith("-"):
        raise AgentDDLError(f"{OPTION}: expected a git ref (a branch, tag or commit), got {ref!r}")
    try:
        _git(where, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except AgentDDLError:
        raise AgentDDLError(f"{OPTION}: {ref!r} names no commit in the git repository {top}") from None
    names: set[str] = set()
    for args in (
        ("diff", "--name-only", "--diff-filter=AM", "-z", f"{ref}...HEAD", "--"),
        ("diff", "--name-only", "--diff-filter=AM", "-z", "HEAD", "--"),
        ("ls-files", "--others", "--exclude-standard", "-z", "--full-name"),
    ):
        names.update(name for name in _git(top, *args).split("\0") if name)
    changed = [top / name for name in names]
    return sorted({found for path in paths for found in _under(path, changed)})


def _git_folder(paths: Sequence[Path]) -> Path:
    """The folder git runs in: the first named path's (its parent for a file), else here."""
    for path in paths:
        if path.is_dir():
            return path
        if path.exists():
            return path.parent if str(path.parent) else Path(".")
    return Path(".")


def _under(path: Path, changed: list[Path]) -> list[Path]:
    """The changed files that are `path` or inside it, spelled from `path`."""
    root = path.resolve()
    found: list[Path] = []
    for file in changed:
        resolved = file.resolve()
        if not resolved.is_file():
            continue
        if resolved == root:
            found.append(path)
        elif resolved.is_relative_to(root):
            found.append(path / resolved.relative_to(root))
    return found


def _git(where: Path, *args: str) -> str:
    """git's standard output; its failure is one line naming the command."""
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise AgentDDLError(f"{OPTION}: git is not installed (no git command on PATH)") from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        reason = lines[0] if lines else f"git {args[0]} exited with {done.returncode}"
        if "not a git repository" in reason:
            raise AgentDDLError(f"{OPTION}: {where.resolve()} is not in a git repository")
        raise AgentDDLError(f"{OPTION}: {reason.removeprefix('fatal: ')}")
    return done.stdout
