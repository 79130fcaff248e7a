"""Profile -> every artifact's text, keyed by relative path. Pure."""

from __future__ import annotations

from agentddl.generator.model import derive
from agentddl.generator.profile import Profile
from agentddl.generator.render.alembic import REVISION_FILE, render_revision
from agentddl.generator.render.citus import render_citus_files
from agentddl.generator.render.ddl import render_schema_sql
from agentddl.generator.render.hot import render_hot_files
from agentddl.generator.render.plan import render_plan
from agentddl.generator.render.queries import render_queries


def render_artifacts(profile: Profile) -> dict[str, str]:
    """All generated files for a profile; the same profile always gives the same bytes."""
    model = derive(profile)
    files = {
        "schema.sql": render_schema_sql(model),
        f"versions/{REVISION_FILE}": render_revision(model),
        "queries.sql": render_queries(model),
        "PLAN.md": render_plan(model),
        **render_hot_files(model),
        **render_citus_files(model),
    }
    return dict(sorted(files.items()))
