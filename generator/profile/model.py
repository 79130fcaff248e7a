"""The typed profile: its fields (sections.py) and the check that they agree with each other
(coherence.py).

Field descriptions become the published JSON Schema (schemas/profile.schema.json), so
they are written for the person editing a profile.
"""

from __future__ import annotations

from pydantic import ValidationInfo, model_validator

from agentddl.generator.profile.coherence import contradictions
from agentddl.generator.profile.sections import (
    SUPPORTED_MAJORS,
    TABLE_COLUMNS,
    Distribution,
    Engine,
    HotState,
    Identifier,
    Lease,
    LockStrategy,
    ModelParts,
    Outbox,
    Payload,
    ProfileFields,
    Retention,
    Roles,
    Tenancy,
    Volume,
)

__all__ = [
    "SUPPORTED_MAJORS",
    "TABLE_COLUMNS",
    "Distribution",
    "Engine",
    "HotState",
    "Identifier",
    "Lease",
    "LockStrategy",
    "ModelParts",
    "Outbox",
    "Payload",
    "Profile",
    "Retention",
    "Roles",
    "Tenancy",
    "Volume",
]


class Profile(ProfileFields):
    """An agentddl profile (version 1)."""

    @model_validator(mode="after")
    def _coherent(self, info: ValidationInfo) -> Profile:
        """Keys that are each valid but contradict each other: the first one found, as
        "<dotted key>: <why>". The file loader checks them itself (context
        {"coherence": "later"}), to place the error at the key in the file."""
        if (info.context or {}).get("coherence") != "later":
            for contradiction in contradictions(self):
                raise ValueError(str(contradiction))
        return self
