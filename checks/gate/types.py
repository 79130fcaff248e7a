"""`CheckRequest`: what `agentddl check` checks, against which database, with which
workload and baseline (`request.run` runs it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentddl.checks.audit.baseline import DEFAULT_GROWTH
from agentddl.checks.core.progress import Progress, silent

if TYPE_CHECKING:
    from agentddl.checks.lint.sizes import TableSizes


@dataclass(frozen=True)
class CheckRequest:
    """What to check, against which database, with which workload and baseline."""

    migrations: Sequence[Path]  # SQL files, Alembic revisions, folders of either
    changed_since: str | None = None  # a git ref: only the migrations added or changed since
    clone: str | None = None  # the database to copy (only read): production or staging
    sample: int = 0  # rows per table copied into the scratch database
    statistics: bool = False  # copy the clone's planner statistics (a PostgreSQL 18 scratch server)
    queries: tuple[Path, ...] = ()  # the audit's workload (named-query files)
    baseline: Path | None = None  # audit plan baseline: compared, or written when missing
    cost_growth: float = DEFAULT_GROWTH
    schema: str | None = None  # the schema verified and audited (default: every / the only one)
    config_file: Path | None = None  # the linter's config (default: found upward from here)
    sizes: TableSizes | None = None  # production's table sizes for the lint (lint's --sizes-from)
    pg_version: int | None = None  # the scratch server's major (an embedded one)
    server: str | None = None  # where the scratch database goes (needs CREATEDB)
    progress: Progress = silent
