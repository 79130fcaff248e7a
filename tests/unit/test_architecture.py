"""Architecture as import contracts: `lint-imports` (import-linter, [tool.importlinter] in
pyproject.toml) passes, the repository's folders are importable only as agentddl.*, no
module of checks/ or generator/ is in an import cycle (read from the source with `ast`:
agentddl.checks.docs.imports), and no product file or function outgrows its bar."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentddl.checks.docs.architecture import IMPORTS_BLOCK, imports_block, transitive_reduction
from agentddl.checks.docs.imports import Graph, cycles, import_graph, package_imports

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


# One job per file, short functions: the bars of issue 22 (style: STYLE.md, the preamble).
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60
PRODUCT_SUFFIXES = (".py", ".sql")  # the product's code: modules and the generator's SQL templates


@pytest.fixture(scope="module")
def repository_graph() -> Graph:
    """The repository's module import graph, read once (it parses every module)."""
    return import_graph(ROOT)


def test_no_import_cycle_between_modules(repository_graph: Graph) -> None:
    """Every import counts (at the top, inside a function, under TYPE_CHECKING), and a
    module that imports its own package's __init__, which imports it back, is a cycle."""
    found = cycles(repository_graph)
    assert found == [], "import cycles:\n" + "\n".join("  " + " -> ".join(cycle) for cycle in found)


def test_the_cycle_reading_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The reading's teeth: each way of closing a cycle the issue names is found."""
    write = {
        "checks/__init__.py": "",
        "checks/fam/__init__.py": "from agentddl.checks.fam.result import Result\n",
        "checks/fam/result.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from agentddl.checks.fam.report import build\n"
        ),
        "checks/fam/report.py": "def build():\n    from agentddl.checks.fam import result\n",
        "checks/pg/__init__.py": "from . import columns\n",
        "checks/pg/columns.py": "from agentddl.checks.pg import names\n",
        "checks/pg/names.py": "import agentddl.checks.pg.lockmodes\n",  # an ancestor, implicitly: no cycle
        "checks/pg/lockmodes.py": "",
        "generator/__init__.py": "",
    }
    for path, text in write.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert cycles(import_graph(tmp_path)) == [
        [
            "agentddl.checks.fam",
            "agentddl.checks.fam.result",
            "agentddl.checks.fam.report",
            "agentddl.checks.fam",
        ],
        ["agentddl.checks.pg", "agentddl.checks.pg.columns", "agentddl.checks.pg"],
    ]


def product_files() -> list[Path]:
    return [
        path
        for top in ("checks", "generator")
        for path in sorted((ROOT / top).rglob("*"))
        if path.suffix in PRODUCT_SUFFIXES and "__pycache__" not in path.parts
    ]


def test_no_product_file_is_over_400_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in product_files()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    }
    assert long == {}, f"files over {MAX_FILE_LINES} lines (split them by job): {long}"


def test_no_function_is_over_60_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in product_files()
        if path.suffix == ".py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)


def test_the_architecture_page_draws_the_package_graph_from_the_code(repository_graph: Graph) -> None:
    """docs/architecture.md holds the generated graph (its staleness: test_docs_site's
    drift check), with the edges the layers are made of."""
    block = IMPORTS_BLOCK.search((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert block is not None, "add <!-- imports: packages --> <!-- /imports --> to docs/architecture.md"
    graph = package_imports(repository_graph)
    assert "agentddl.checks.core" in graph["agentddl.checks.lint"]
    assert not any(p.startswith("agentddl.checks") for p in graph["agentddl.generator.model"])
    rows = [line for line in block.group(2).splitlines() if line.startswith("| `")]
    assert len(rows) == len(graph)
    assert "```mermaid\ngraph TD\n" in block.group(2)


def test_the_picture_leaves_out_only_arrows_a_longer_path_implies() -> None:
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"e"}, "e": {"d", "c"}}
    assert transitive_reduction(graph) == {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"e"}, "e": {"d", "c"}}
    block = imports_block(
        {"agentddl.checks.x": {"agentddl.checks.y"}, "agentddl.checks.y": {"agentddl.checks.x"}}
    )
    assert "  checks_x --> checks_y\n  checks_y --> checks_x\n" in block
    assert "| `checks.x` | `checks.y` | `checks.y` |" in block
    assert "import each other, through modules that do not: `checks.x`, `checks.y`." in block
