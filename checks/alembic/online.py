"""Run a generated Alembic revision against a real database with Alembic's own commands
(`alembic.command`): verify's apply check (the revision beside schema.sql) and the
migration tests. agentddl's env.py (`agentddl.migrations`) opens the connection, to the
DSN in `Config.attributes["dsn"]`."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config

from agentddl.generator.render.alembic import REVISION_FILE


@contextmanager
def script_directory(revision_text: str) -> Iterator[Path]:
    """A throwaway Alembic environment: agentddl's env.py plus one revision."""
    with tempfile.TemporaryDirectory(prefix="agentddl-alembic-") as temp:
        root = Path(temp)
        env = resources.files("agentddl.migrations")
        for name in ("env.py", "script.py.mako"):
            (root / name).write_text(env.joinpath(name).read_text(encoding="utf-8"), encoding="utf-8")
        (root / "versions").mkdir()
        (root / "versions" / REVISION_FILE).write_text(revision_text, encoding="utf-8")
        yield root


def alembic_config(script_location: Path, dsn: str) -> Config:
    """env.py reads the database from attributes["dsn"] before AGENTDDL_DSN."""
    config = Config()
    config.set_main_option("script_location", str(script_location))
    config.attributes["dsn"] = dsn
    return config


def upgrade(revision_text: str, dsn: str, target: str = "head") -> None:
    with script_directory(revision_text) as root:
        command.upgrade(alembic_config(root, dsn), target)


def downgrade(revision_text: str, dsn: str, target: str = "base") -> None:
    with script_directory(revision_text) as root:
        command.downgrade(alembic_config(root, dsn), target)


__all__ = ["downgrade", "script_directory", "upgrade"]
