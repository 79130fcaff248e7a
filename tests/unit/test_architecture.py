"""Architecture as import contracts: `lint-imports` (import-linter, [tool.importlinter] in
pyproject.toml) passes, and the repository's folders are importable only as agentddl.*."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"generator": "generator", "checks": "checks", "schemas": "schemas", "migrations": "migrations"}


def _package_tree(tmp_path: Path) -> Path:
    """`agentddl/<sub>` links to the repository folders: import-linter walks packages on
    disk, which a non-strict editable install (an import hook) does not provide."""
    package = tmp_path / "agentddl"
    package.mkdir()
    for name, folder in FOLDERS.items():
        (package / name).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


def test_import_contracts_are_kept(tmp_path: Path) -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(_package_tree(tmp_path))}
    result = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_folders_are_not_top_level_packages() -> None:
    # In a fresh interpreter started at the repository root (not in this process: pytest
    # puts tests/unit on sys.path, where the tests' own generator/ folder lives).
    probe = (
        "import importlib.util as u; "
        "print(u.find_spec('generator') is None and u.find_spec('checks') is None, "
        "u.find_spec('agentddl.generator') is not None)"
    )
    result = subprocess.run(
        [sys.executable, "-P", "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == ["True", "True"], result.stdout + result.stderr


def test_only_the_database_layer_opens_connections() -> None:
    # ruff's banned-api rule (TID251) says the same in `make check`; this test also catches
    # a call spelled through an alias ruff cannot see, e.g. `pg.connect(` after `import psycopg as pg`.
    allowed = ROOT / "checks" / "db" / "connect.py"
    pattern = re.compile(r"\b(psycopg|Connection|AsyncConnection|pg)\.connect\(")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "checks").rglob("*.py"))
        if path != allowed
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == [], "open connections with agentddl.checks.db.connect"
