"""Where Alembic revisions are, and what each one declares, read without importing it
(the project's env.py and revision scripts may import the application)."""

from __future__ import annotations

import ast as pyast
import configparser
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def is_environment(directory: Path) -> bool:
    """A folder holding an Alembic environment (env.py + versions/, or alembic.ini)."""
    return (directory / "alembic.ini").is_file() or (
        (directory / "env.py").is_file() and (directory / "versions").is_dir()
    )


def environment_versions(directory: Path) -> list[Path]:
    """The version folders of an Alembic environment folder."""
    ini = directory / "alembic.ini"
    if ini.is_file():
        parser = configparser.ConfigParser(defaults={"here": str(directory)})
        parser.read(ini, encoding="utf-8")
        section = parser["alembic"] if parser.has_section("alembic") else parser.defaults()
        locations = section.get("version_locations")
        if locations:
            return [directory / p for p in re.split(r"[\s,;:]+", locations.strip()) if p]
        directory = directory / section.get("script_location", ".").split(":")[-1]
    return [directory / "versions"]


def revision_files(versions: list[Path]) -> list[Path]:
    """Every revision script in the version folders, sorted by name."""
    return sorted(p for folder in versions for p in folder.glob("*.py") if p.name != "__init__.py")


def revision_identity(path: Path) -> tuple[str, str | None] | None:
    """`revision` and (first) `down_revision` read from the script without importing it."""
    try:
        tree = pyast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None
    values = dict(_literal_assignments(tree))
    revision = values.get("revision")
    if not isinstance(revision, str):
        return None
    down = _as_list(values.get("down_revision"))
    return revision, down[0] if down else None


def _literal_assignments(tree: pyast.Module) -> Iterator[tuple[str, Any]]:
    """`name = <literal>` and `name: T = <literal>` at module level."""
    for node in tree.body:
        if isinstance(node, pyast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, pyast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, pyast.Name):
            try:
                yield target.id, pyast.literal_eval(value)
            except ValueError:
                continue


def _as_list(value: Any) -> list[str]:
    """A revision id or a sequence of them (a merge's down_revision), as a list."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []
