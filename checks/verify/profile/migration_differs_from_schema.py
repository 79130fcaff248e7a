"""ADV130 migration-differs-from-schema."""

from __future__ import annotations

from agentddl.checks.catalog_rules.types import Rule, VerifyContext


class MigrationDiffersFromSchema(Rule):
    """A profile's Alembic revision builds another catalog than its schema.sql.

    ## What it does
    Reported by `agentddl apply`, which installs the profile's schema.sql into one
    scratch database and runs its Alembic revision (`alembic upgrade head`) in another
    on the same server, reads both back from pg_catalog and compares them object by
    object: tables, partitions, columns and their storage, constraints, indexes,
    sequences, views, triggers, functions, policies, comments, and the privileges of
    the profile's roles. Each object only one install has, or has otherwise, is one
    finding. (`agentddl verify` never reports it: it needs the two installs `apply`
    makes.)

    ## Why is this bad?
    Teams start from schema.sql (a fresh database, a test fixture) and deploy with the
    migration. When the two differ, tests pass against a schema production does not
    have: an index missing after the migration makes a hot path scan, a lost constraint
    lets bad rows in, and `verify --profile` reports production as drifted.

    ## Example
    ```text
    $ agentddl apply --profile schemas/default.yaml
    error ADV130 [migration-differs-from-schema] agent.runs_claim_idx
      index agent.runs_claim_idx differs: predicate "status = 'queued'::text" after
      schema.sql, '' after alembic upgrade head.
    ```

    ## Use instead
    Render both from the same profile with the same agentddl (`agentddl generate`):
    they come from one schema model and must agree. If they still differ, report the
    profile with the finding: it is a bug of the generator.

    ## References
    - https://alembic.sqlalchemy.org/en/latest/tutorial.html#running-our-first-migration
    - https://www.postgresql.org/docs/current/catalogs.html
    """

    code = "ADV130"
    name = "migration-differs-from-schema"
    severity = "error"
    group = "profile"

    def applies(self, context: VerifyContext) -> bool:
        return False  # `apply` reports it: verify has one database, not two installs
