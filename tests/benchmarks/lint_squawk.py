"""Run squawk (PyPI squawk-cli) on migrations, for side-by-side comparisons.

squawk reads SQL only: an Alembic revision is handed over as the SQL agentddl renders
for it with Alembic's offline mode, so both linters see the same statements.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from itertools import groupby
from pathlib import Path

from agentddl.checks.alembic import offline
from agentddl.checks.lint.types import Runner
from agentddl.checks.pg import tool_markers

_BEGIN = re.compile(r"^\s*(BEGIN|START\s+TRANSACTION)\b", re.IGNORECASE | re.MULTILINE)
Item = tuple[Path, int, Runner]  # a migration, its target major version, its runner


def squawk_binary() -> str | None:
    """`squawk` beside this interpreter (a venv) or on PATH."""
    beside = Path(sys.executable).with_name("squawk")
    return str(beside) if beside.is_file() else shutil.which("squawk")


def run_squawk(binary: str, items: list[Item]) -> dict[Path, tuple[str, ...]]:
    """The rule names squawk reports for each migration (one entry per violation)."""
    with tempfile.TemporaryDirectory(prefix="agentddl-squawk-") as temp:
        sql_of = _sql_files([path for path, _, _ in items], Path(temp))
        jobs = [(sql_of[p], version, _assume_transaction(sql_of[p], runner)) for p, version, runner in items]
        found = _run_groups(binary, jobs)
    back = {sql.resolve(): path for path, sql in sql_of.items()}
    result: dict[Path, tuple[str, ...]] = {path: () for path, _, _ in items}
    result.update({back[sql]: rules for sql, rules in found.items() if sql in back})
    return result


def _sql_files(paths: list[Path], temp: Path) -> dict[Path, Path]:
    """Each path's SQL file: itself, or the offline SQL of an Alembic revision."""
    revisions = [p for p in paths if p.suffix == ".py"]
    rendered = {r.path: r.sql for r in offline.offline_sql(revisions)} if revisions else {}
    sql_of = {}
    for path in paths:
        if path.suffix != ".py":
            sql_of[path] = path
            continue
        target = temp / f"{path.stem}.sql"
        target.write_text(rendered.get(path, ""), encoding="utf-8")
        sql_of[path] = target
    return sql_of


def _assume_transaction(sql: Path, runner: Runner) -> bool:
    """Alembic runs SQL that has no BEGIN of its own in one transaction; goose, dbmate
    and sql-migrate run a file's up section in one (squawk's `assume_in_transaction`
    setting is how its users say so)."""
    text = sql.read_text(encoding="utf-8")
    if runner == "alembic":
        return _BEGIN.search(text) is None
    return tool_markers.up_section(text).in_transaction


def _run_groups(binary: str, jobs: Iterable[tuple[Path, int, bool]]) -> dict[Path, tuple[str, ...]]:
    found: dict[Path, tuple[str, ...]] = {}

    def key(job: tuple[Path, int, bool]) -> tuple[int, bool]:
        return job[1], job[2]

    for (version, assume), group in groupby(sorted(jobs, key=key), key=key):
        found.update(_run_once(binary, [sql for sql, _, _ in group], version, assume))
    return found


def _run_once(binary: str, files: list[Path], version: int, assume: bool) -> dict[Path, tuple[str, ...]]:
    command = [binary, "--reporter", "json", f"--pg-version={version}.0", *map(str, files)]
    if assume:
        command.insert(1, "--assume-in-transaction")
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    found: dict[Path, tuple[str, ...]] = {}
    for violation in json.loads(completed.stdout or "[]"):
        path = Path(violation["file"]).resolve()
        found[path] = (*found.get(path, ()), violation["rule_name"])
    return found
