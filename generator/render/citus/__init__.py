"""The Citus rendering of a profile (distribution.engine: citus), kept apart from the
single-server renderers: citus.sql (tables distributed by the tenant, co-located; the
tenants table a reference table; partition maintenance with Citus's time-partition
functions) and PLAN.md's Scale-out section; the queries take their Citus form from
the model themselves (render/queries/: Ctx.distributed).

Built against Citus's documented behaviour; no Citus server has run it (PLAN.md says what
is proven statically and what is not)."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.render.citus.layout import CITUS_FILE
from agentddl.generator.render.citus.sql import render_citus_sql


def render_citus_files(model: SchemaModel) -> dict[str, str]:
    """{citus.sql: ...} when the profile distributes with Citus, else nothing."""
    return {CITUS_FILE: render_citus_sql(model)} if model.is_distributed else {}


__all__ = [
    "CITUS_FILE",
    "render_citus_files",
    "render_citus_sql",
]
