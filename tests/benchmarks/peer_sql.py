"""The peers' SQL, read out of their packages as PyPI ships them (helper of peer_bench.py).

`pip download --no-deps` (the project's pip, nothing installed) puts each pinned peer in
build/peers/<name>/ (once: an archive there that meets the pin is used again); its schema
and the statements its workers send are read from the downloaded wheel (or sdist)
without importing it: SQL files as they are, Python constants by parsing the module
(ast). Nothing here is written by hand but the names of what is read.

- procrastinate (a job queue): procrastinate/sql/schema.sql, and from
  procrastinate/sql/queries.sql defer_jobs and count_jobs_status (the backlog) and the
  worker's register_worker, fetch_job and finish_job.
- pgmq (a message queue): the pgmq extension's SQL the client package ships for its
  SQL-only install (pgmq/sql/pgmq.sql), and the client's own statements
  (pgmq/_sql.py: CREATE_QUEUE, SEND_BATCH and METRICS for the backlog, READ, DELETE).
- langgraph-checkpoint-postgres (a checkpoint store): MIGRATIONS, the put statements
  (UPSERT_CHECKPOINT_BLOBS_SQL, UPSERT_CHECKPOINTS_SQL) and SELECT_SQL from
  langgraph/checkpoint/postgres/base.py, and get_tuple's latest-checkpoint filter from
  langgraph/checkpoint/postgres/__init__.py.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from agentddl.generator.errors import AgentDDLError

PEERS_DIR = Path("build/peers")
PINS = {"procrastinate": "==3.10.*", "pgmq": "==1.1.4", "langgraph-checkpoint-postgres": "==3.2.*"}
QUERY_HEADER = re.compile(r"^-- (\w+) --$", re.MULTILINE)
LATEST_MARK = "ORDER BY checkpoint_id DESC LIMIT 1"


@dataclass
class Peer:
    """One peer as downloaded: where from, the scripts that install its schema (run in
    order, each on its own, as the peer runs them) and its named statements."""

    name: str
    archive: Path
    version: str
    install: list[str] = field(default_factory=list)
    statements: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # statement or script -> file it came from

    def to_json(self) -> dict[str, object]:
        return {
            "package": self.name,
            "version": self.version,
            "archive": str(self.archive),
            "install_scripts": len(self.install),
            "statements": self.statements,
            "sources": self.sources,
        }


def download(name: str, into: Path = PEERS_DIR) -> Path:
    """The pinned peer's wheel or sdist: one already downloaded that meets the pin, else
    one `pip download --no-deps` fetches with the project's pip (nothing is installed)."""
    target = into / name
    found = downloaded(name, target)
    if found is not None:
        return found
    target.mkdir(parents=True, exist_ok=True)
    pin = f"{name}{PINS[name]}"
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(target), pin]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise AgentDDLError(f"pip download {pin} failed: {done.stderr.strip()[-400:]}")
    found = downloaded(name, target)
    if found is None:
        raise AgentDDLError(f"pip download {pin} left no wheel or sdist in {target}")
    return found


def downloaded(name: str, target: Path) -> Path | None:
    """The newest wheel (else sdist) of `name` in `target` that meets its pin."""
    pin = SpecifierSet(PINS[name])
    archives = [
        p
        for p in (target.iterdir() if target.is_dir() else [])
        if (p.suffix == ".whl" or p.name.endswith(".tar.gz")) and version_of(name, p) in pin
    ]
    if not archives:
        return None
    return max(archives, key=lambda p: (Version(version_of(name, p)), p.suffix == ".whl"))


def member(archive: Path, path: str) -> str:
    """The text of the archive's file whose path ends with `path` (a wheel's paths are
    the package's own; an sdist's start with its folder and often src/)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            names = [n for n in wheel.namelist() if n == path or n.endswith("/" + path)]
            if names:
                return wheel.read(min(names, key=len)).decode("utf-8")
    else:
        with tarfile.open(archive) as sdist:
            members = [m for m in sdist.getmembers() if m.name.endswith("/" + path)]
            handle = sdist.extractfile(min(members, key=lambda m: len(m.name))) if members else None
            if handle is not None:
                return handle.read().decode("utf-8")
    raise AgentDDLError(f"{archive.name} has no {path}")


def version_of(name: str, archive: Path) -> str:
    """The version in a wheel's or sdist's file name ("" when it is not `name`'s)."""
    normalized = archive.name.lower().replace("_", "-")
    if not normalized.startswith(name + "-") or not normalized[len(name) + 1 : len(name) + 2].isdigit():
        return ""
    return normalized[len(name) + 1 :].split("-")[0].removesuffix(".tar.gz")


def module_constants(text: str) -> dict[str, object]:
    """Module-level NAME = <literal> assignments (strings, lists of strings); f-strings
    and anything computed are left out."""
    found: dict[str, object] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def function_strings(text: str, function: str) -> list[str]:
    """Every string constant inside the function or method `function`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return [
                c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
    return []


def named_queries(text: str) -> dict[str, str]:
    """procrastinate's queries.sql: `-- name --`, a description line, the query."""
    parts = QUERY_HEADER.split(text)
    queries = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [line for line in body.strip().splitlines() if not line.startswith("--")]
        queries[name] = "\n".join(lines).strip()
    return queries


def _constant(constants: dict[str, object], name: str, where: str) -> str:
    value = constants.get(name)
    if not isinstance(value, str):
        raise AgentDDLError(f"{where} has no string constant {name}")
    return value


def procrastinate(archive: Path) -> Peer:
    peer = Peer("procrastinate", archive, version_of("procrastinate", archive))
    peer.install = [member(archive, "procrastinate/sql/schema.sql")]
    peer.sources["install"] = "procrastinate/sql/schema.sql"
    queries = named_queries(member(archive, "procrastinate/sql/queries.sql"))
    for name in ("defer_jobs", "count_jobs_status", "register_worker", "fetch_job", "finish_job"):
        if name not in queries:
            raise AgentDDLError(f"procrastinate/sql/queries.sql has no query {name}")
        peer.statements[name] = queries[name]
        peer.sources[name] = f"procrastinate/sql/queries.sql: {name}"
    return peer


def pgmq(archive: Path) -> Peer:
    peer = Peer("pgmq", archive, version_of("pgmq", archive))
    peer.install = [member(archive, "pgmq/sql/pgmq.sql")]
    extension = member(archive, "pgmq/sql/VERSION").strip().splitlines()[-1]
    peer.sources["install"] = f"pgmq/sql/pgmq.sql (the pgmq extension {extension}, SQL-only install)"
    constants = module_constants(member(archive, "pgmq/_sql.py"))
    for name in ("CREATE_QUEUE", "SEND_BATCH", "METRICS", "READ", "DELETE"):
        peer.statements[name.lower()] = _constant(constants, name, "pgmq/_sql.py")
        peer.sources[name.lower()] = f"pgmq/_sql.py: {name}"
    return peer


def langgraph(archive: Path) -> Peer:
    peer = Peer(
        "langgraph-checkpoint-postgres", archive, version_of("langgraph-checkpoint-postgres", archive)
    )
    base = "langgraph/checkpoint/postgres/base.py"
    constants = module_constants(member(archive, base))
    migrations = constants.get("MIGRATIONS")
    if not isinstance(migrations, list) or not all(isinstance(m, str) for m in migrations):
        raise AgentDDLError(f"{base} has no MIGRATIONS list of strings")
    peer.install = list(migrations)
    peer.sources["install"] = f"{base}: MIGRATIONS ({len(migrations)})"
    for name in ("UPSERT_CHECKPOINT_BLOBS_SQL", "UPSERT_CHECKPOINTS_SQL", "SELECT_SQL"):
        peer.statements[name.lower()] = _constant(constants, name, base)
        peer.sources[name.lower()] = f"{base}: {name}"
    saver = "langgraph/checkpoint/postgres/__init__.py"
    latest = [s for s in function_strings(member(archive, saver), "get_tuple") if LATEST_MARK in s]
    if not latest:
        raise AgentDDLError(f"{saver}: get_tuple has no latest-checkpoint filter ({LATEST_MARK})")
    peer.statements["select_latest"] = peer.statements["select_sql"] + latest[0]
    peer.sources["select_latest"] = f"{base}: SELECT_SQL + {saver}: get_tuple's filter"
    return peer


READERS = {"procrastinate": procrastinate, "pgmq": pgmq, "langgraph-checkpoint-postgres": langgraph}


def load_peers(into: Path = PEERS_DIR) -> dict[str, Peer]:
    """Every peer downloaded (pip) and read."""
    return {name: read(download(name, into)) for name, read in READERS.items()}


if __name__ == "__main__":  # what would be measured: `python tests/benchmarks/peer_sql.py`
    for loaded in load_peers().values():
        print(f"# {loaded.name} {loaded.version} ({loaded.archive})")
        for key, statement in loaded.statements.items():
            print(f"-- {key} ({loaded.sources[key]})\n{statement.strip()}\n")
