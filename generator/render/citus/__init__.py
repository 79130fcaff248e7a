"""The Citus rendering of a profile (distribution.engine: citus), kept apart from the
single-server renderers: citus.sql (tables distributed by the tenant, co-located; the
tenants table a reference table; partition maintenance with Citus's time-partition
functions), the maintain_partitions query that calls it, and PLAN.md's Scale-out section.

Built against Citus's documented behaviour; no Citus server has run it (PLAN.md says what
is proven statically and what is not)."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.render.citus.layout import (
    CITUS_FILE,
    distributed_tables,
    is_distributed,
    reference_tables,
)
from agentddl.generator.render.citus.sql import render_citus_sql


def render_citus_files(model: SchemaModel) -> dict[str, str]:
    """{citus.sql: ...} when the profile distributes with Citus, else nothing."""
    return {CITUS_FILE: render_citus_sql(model)} if is_distributed(model) else {}


__all__ = [
    "CITUS_FILE",
    "distributed_tables",
    "is_distributed",
    "reference_tables",
    "render_citus_files",
    "render_citus_sql",
]
