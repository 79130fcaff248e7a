"""The Redis key layout's one profile-dependent part (the rest is in runtime.py)."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel


def key_prefix(model: SchemaModel) -> str:
    """`agent:run:` for schema `agent`: the run keys of one schema never meet another's."""
    return f"{model.schema}:run:"
