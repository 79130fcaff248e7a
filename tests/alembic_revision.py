"""A minimal Alembic revision file (`revision_file(folder, rev, down)`): its revision,
down_revision and branch_labels set, an upgrade() that runs SELECT 1; for the tests of
how revisions are ordered against each other and against a database's alembic_version."""

from __future__ import annotations

from pathlib import Path

REVISION = """\
from alembic import op

revision = "{rev}"
down_revision = {down!r}
branch_labels = {labels!r}


def upgrade() -> None:
    op.execute("SELECT 1")
"""


def revision_file(
    folder: Path, rev: str, down: str | tuple[str, ...] | None, labels: tuple[str, ...] | None = None
) -> Path:
    """`folder`/`rev`.py (the folder made if need be)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rev}.py"
    path.write_text(REVISION.format(rev=rev, down=down, labels=labels))
    return path
