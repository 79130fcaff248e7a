"""`agentddl lint --format json` as a typed model: docs/schemas/lint.schema.json is
generated from it (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.core.report.schema import Envelope, FindingOut


class LintFinding(FindingOut):
    """A lint finding: the shared shape, plus `rule`, deprecated."""

    rule: str = Field(
        deprecated=True,
        description="Deprecated since 0.2.0, removed in 0.3.0: the same as `name`, which replaced it.",
    )


class LintOutput(Envelope):
    """`agentddl lint --format json`: the migrations linted and what would lock or break."""

    files: int = Field(ge=0, description="How many files (SQL files and Alembic revisions) were linted.")
    schema_from: str | SkipJsonSchema[None] = Field(
        None, description="With --schema-from: where the live schema was read from."
    )
    sizes: str | SkipJsonSchema[None] = Field(
        None,
        description="With --schema-from or --sizes-from: where production's table sizes came from "
        '("none": not known).',
    )
    data_checked_on: str | SkipJsonSchema[None] = Field(
        None, description="The database data-dependent statements were checked on."
    )
    findings: Sequence[LintFinding]
