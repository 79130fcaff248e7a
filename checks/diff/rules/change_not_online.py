"""ADC101 change-not-online: a profile change with no online recipe."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentddl.checks.core.findings import Finding
from agentddl.checks.diff.types import DiffRule
from agentddl.generator.delta import Delta
from agentddl.generator.profile.load import locate_key


class ChangeNotOnline(DiffRule):
    """A profile change that cannot be made to a live schema online.

    ## What it does
    Reports a change between two profiles (or between a live database and a profile) that
    has no online recipe: the tenant column added, removed, renamed or retyped, the schema
    renamed, a switch between the builtin partition manager and pg_partman, two roles
    swapping names, distributing the schema with Citus (or undistributing, re-sharding).
    `agentddl generate` refuses to write a revision for it; the finding carries the reason
    and the multi-step plan that makes the change by hand.

    ## Why is this bad?
    Each of these rewrites every table or every key (a new type for the column every
    composite key and foreign key leads with), or moves objects every running session
    names. A single migration doing it would hold ACCESS EXCLUSIVE locks for as long as
    the rewrite takes, or break every session still on the old names: the runtime stops.

    ## Example
    ```yaml
    # schemas/default.yaml, from single-tenant to multi-tenant
    tenancy:
      column: tenant_id    # was: null
    ```
    `agentddl diff old.yaml schemas/default.yaml` reports `tenancy.column: null ->
    tenant_id: cannot be changed online` at the key's line, with a plan: expand (add the
    nullable column and the new keys beside the old), backfill in batches, switch the
    application, contract (drop the old keys).

    ## Use instead
    Follow the plan in steps, each its own reviewed migration, or keep the setting. Steps
    that can be made online (the expand and contract revisions) can be written by hand
    and checked with `agentddl lint` and `agentddl trace --dsn`.

    ## References
    - PostgreSQL docs, ALTER TABLE ("Notes": which forms rewrite the table):
      https://www.postgresql.org/docs/current/sql-altertable.html
    - The expand/contract pattern: https://martinfowler.com/bliki/ParallelChange.html
    """

    code = "ADC101"
    name = "change-not-online"
    severity = "error"

    @classmethod
    def judge(cls, delta: Delta, new_path: Path | None) -> Iterator[Finding]:
        """One finding per refused change, at its key in the new profile when it is a file."""
        text = _profile_text(new_path)
        for refusal in delta.refusals:
            message = f"{refusal.change}: cannot be changed online: {refusal.reason}"
            fix = "Make it in steps: " + " ".join(f"{n}. {s}" for n, s in enumerate(refusal.plan, start=1))
            if text is None or new_path is None:
                yield cls.finding(message, fix, object=refusal.key)
                continue
            line, column = locate_key(text, refusal.key)
            yield cls.finding(message, fix, file=str(new_path), line=line, column=column)


def _profile_text(path: Path | None) -> str | None:
    """The new profile's text when it is a profile file (not a revision or a folder)."""
    if path is None or not path.is_file() or path.suffix == ".py":
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
