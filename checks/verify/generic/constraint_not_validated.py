"""ADV110 constraint-not-validated."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.sql import not_extension_member


class ConstraintNotValidated(Rule):
    """A CHECK, foreign key or NOT NULL constraint added `NOT VALID` and never validated.

    ## What it does
    Reports constraints with `convalidated = false`: added with `NOT VALID` (the
    safe first step of adding one to a big table) whose `VALIDATE CONSTRAINT` step
    never ran. Constraints a partition inherits are reported on the parent. On 18+,
    a constraint declared `NOT ENFORCED` is reported too (it is never validated and
    checks no new row either), with the fix that makes it enforced.

    ## Why is this bad?
    New rows are checked, old rows never were: the invariant the constraint states
    does not hold for the table, the planner cannot use it (no constraint
    exclusion, no proof for `SET NOT NULL`), and readers trust it anyway.

    ## Example
    ```sql
    ALTER TABLE agent.runs ADD CONSTRAINT runs_priority_check CHECK (priority >= 0) NOT VALID;
    -- ...and the migration's VALIDATE step was forgotten
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.runs VALIDATE CONSTRAINT runs_priority_check;
    ```
    It takes SHARE UPDATE EXCLUSIVE: reads and writes continue while it scans.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-VALIDATE-CONSTRAINT
    """

    code = "ADV110"
    name = "constraint-not-validated"
    severity = "warning"
    group = "generic"
    query = f"""
        SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name,
               quote_ident(con.conname) AS name, con.contype::text AS kind,
               -- 18+: NOT ENFORCED (never checked, not even for new rows); read through
               -- to_jsonb so one query serves 14..18
               coalesce((to_jsonb(con) ->> 'conenforced')::boolean, true) AS enforced
        FROM pg_constraint AS con
        JOIN pg_class AS c ON c.oid = con.conrelid
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY(%(schemas)s) AND NOT con.convalidated AND {not_extension_member("c")}
          AND con.conislocal AND con.conparentid = 0
        ORDER BY 1, 2
    """

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            table, name = row["table_name"], row["name"]
            if not row["enforced"]:
                yield self.finding(
                    f"{name} is NOT ENFORCED: PostgreSQL checks no row against it, old or new.",
                    f"ALTER TABLE {table} ALTER CONSTRAINT {name} ENFORCED"
                    if row["kind"] == "f"
                    else f"drop {name} and add it again: ADD CONSTRAINT ... NOT VALID, then VALIDATE",
                    object=f"{table}.{name}",
                )
                continue
            yield self.finding(
                f"{name} was added NOT VALID and never validated: rows written before it "
                "may break it, and the planner can't rely on it.",
                f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}",
                object=f"{table}.{name}",
            )
