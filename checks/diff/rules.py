"""The one finding `agentddl diff` reports: a profile change with no online recipe."""

from __future__ import annotations

from agentddl.checks.core.rules import Rule


class ChangeNotOnline(Rule):
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
    family = "diff"


def all_rules() -> tuple[type[Rule], ...]:
    return (ChangeNotOnline,)
