"""A working Alembic environment for a folder of agentddl revisions (`generate --alembic`):
alembic.ini, env.py and script.py.mako, the ones this repository's migrations/ runs with.
Files already there are the user's: never replaced."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

ALEMBIC_INI = """\
# Written by `agentddl generate --alembic`. In this folder: `alembic upgrade head`;
# from elsewhere: `alembic -c path/to/alembic.ini upgrade head`. The database comes
# from $AGENTDDL_DSN (a libpq URI), else from sqlalchemy.url below.
[alembic]
script_location = %(here)s
prepend_sys_path =
# sqlalchemy.url = postgresql://user@host/dbname
"""


def environment_files(out: Path) -> dict[str, str]:
    """The environment files missing from `out`, by name."""
    package = files("agentddl.migrations")
    wanted = {
        "alembic.ini": ALEMBIC_INI,
        "env.py": package.joinpath("env.py").read_text(encoding="utf-8"),
        "script.py.mako": package.joinpath("script.py.mako").read_text(encoding="utf-8"),
    }
    return {name: text for name, text in wanted.items() if not (out / name).exists()}
