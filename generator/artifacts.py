"""Profile -> every artifact's text, keyed by relative path. Pure."""

from __future__ import annotations

import importlib

from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import Profile
from agentddl.generator.render.alembic import REVISION_FILE, render_revision
from agentddl.generator.render.ddl import render_schema_sql


def render_artifacts(profile: Profile) -> dict[str, str]:
    """All generated files for a profile; the same profile always gives the same bytes."""
    model = derive(profile)
    files = {
        "schema.sql": render_schema_sql(model),
        f"versions/{REVISION_FILE}": render_revision(model),
    }
    files.update(_optional(model))
    return dict(sorted(files.items()))


def _optional(model: SchemaModel) -> dict[str, str]:
    # queries.sql and PLAN.md renderers live in their own modules.
    result = {}
    for path, module, function in (
        ("queries.sql", "agentddl.generator.render.queries", "render_queries"),
        ("PLAN.md", "agentddl.generator.render.plan", "render_plan"),
    ):
        render = getattr(importlib.import_module(module), function)
        result[path] = render(model)
    return result
