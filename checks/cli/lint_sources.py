"""What `agentddl lint` reads besides the SQL: the schema before the migrations
(`--schema-from`), production's table sizes (`--sizes-from`) and, when the schema is a
live database, the Alembic revisions it is at and the read-only probe that judges
data-dependent statements on its rows.
A database is read by the database layer; files and profiles without one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentddl.checks.lint.probe import DataProbe
    from agentddl.checks.lint.sizes import TableSizes
    from agentddl.checks.pg.schema import SchemaFacts


def schema_facts(source: str) -> SchemaFacts:
    """--schema-from: the schema only (pg_dump of a database, a .sql file, a profile)."""
    from agentddl.checks.pg.schema_sources import facts_from_file, is_dsn

    if not is_dsn(source):
        return facts_from_file(Path(source))
    from agentddl.checks.db import describe_dsn
    from agentddl.checks.db.schema_read import read_schema
    from agentddl.checks.pg.schema_parse import parse_schema

    return parse_schema(read_schema(source), describe_dsn(source))


def table_sizes(source: str) -> TableSizes:
    """--sizes-from: a database's pg_class statistics, or the sizes a file states (the
    pg_restore_relation_stats(...) calls of pg_dump --statistics, a profile's volume)."""
    from agentddl.checks.lint.sizes import sizes_by_name, sizes_of
    from agentddl.checks.pg.schema_sources import facts_from_file, is_dsn

    if not is_dsn(source):
        return sizes_of(facts_from_file(Path(source)))
    from agentddl.checks.db import describe_dsn
    from agentddl.checks.db.schema_read import table_sizes as read_sizes

    return sizes_by_name(describe_dsn(source), read_sizes(source))


def applied_revisions(source: str) -> tuple[str, ...] | None:
    """The alembic_version rows of a --schema-from database (None: a file, a profile, or
    a database Alembic never ran on)."""
    from agentddl.checks.pg.schema_sources import is_dsn

    if not is_dsn(source):
        return None
    from agentddl.checks.db.alembic_version import applied_revisions as read_versions

    return read_versions(source)


@contextmanager
def data_probe(schema_from: str | None) -> Iterator[DataProbe | None]:
    """The read-only probe of the --schema-from database (None for a file or a profile),
    closed on exit."""
    from agentddl.checks.pg.schema_sources import is_dsn

    if schema_from is None or not is_dsn(schema_from):
        yield None
        return
    from agentddl.checks.db.data_probe import ReadOnlyProbe

    with ReadOnlyProbe(schema_from) as probe:
        yield probe
