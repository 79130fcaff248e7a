"""`SchemaFacts` from the sources that need no database: a schema.sql (or `pg_dump`)
file, and an agentddl profile (its rendered schema.sql, with table sizes estimated from
its volume and retention). A live database's facts come from its `pg_dump`, read by
the database layer and parsed with the same `parse_schema`."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from agentddl.checks.pg.schema import SchemaFacts, TableFacts
from agentddl.checks.pg.schema_parse import parse_schema
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import Profile, load_profile

PROFILE_SUFFIXES = (".yaml", ".yml")
DAY = 86400
_KEY_VALUE_DSN = re.compile(r"^\s*[a-z_]+\s*=")


def is_dsn(source: str) -> bool:
    """A libpq connection string (URI or key=value), not a file name."""
    return source.startswith(("postgresql://", "postgres://")) or bool(_KEY_VALUE_DSN.match(source))


def facts_from_file(path: Path) -> SchemaFacts:
    """A profile (.yaml/.yml) or a schema SQL file (anything else)."""
    if path.suffix in PROFILE_SUFFIXES:
        if not path.is_file():
            raise AgentDDLError(f"{path}: no such profile")
        return facts_from_profile(derive(load_profile(path)))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AgentDDLError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDDLError(f"{path}: cannot read: {error}") from None
    return parse_schema(text, str(path))


def facts_from_profile(model: SchemaModel) -> SchemaFacts:
    """The profile's schema as it renders, each table's rows estimated at steady state."""
    from agentddl.generator.render.ddl import render_schema_sql

    facts = parse_schema(render_schema_sql(model), f"profile {model.profile.name!r}")
    rows = steady_state_rows(model.profile)
    tables = {name: _sized(table, rows, model.schema) for name, table in facts.tables.items()}
    return replace(facts, tables=tables)


def steady_state_rows(profile: Profile) -> dict[str, int]:
    """Rows each table holds once its retention window is full: what the volume section
    says arrives per day, times the days kept (attempts and operations: one per run)."""
    volume, keep = profile.volume, profile.retention
    steps_per_day = volume.steps_per_second * DAY
    runs = volume.runs_per_day * max(1, keep.runs // DAY)
    return {
        "runs": runs,
        "attempts": runs,
        "operations": runs,
        "events": steps_per_day * volume.events_per_step * max(1, keep.events // DAY),
        "checkpoints": steps_per_day * max(1, keep.checkpoints // DAY),
        "outbox": steps_per_day * max(1, keep.outbox_delivered // DAY),
    }


def _sized(table: TableFacts, rows: dict[str, int], schema: str) -> TableFacts:
    if table.name.schema != schema or table.name.name not in rows:
        return table
    return replace(table, rows=rows[table.name.name])
