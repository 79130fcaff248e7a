"""ADV106 timestamp-without-time-zone."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.columns import columns_of_type


class TimestampWithoutTimeZone(Rule):
    """A column of type `timestamp` (without time zone).

    ## What it does
    Reports columns of type `timestamp` / `timestamp without time zone` (and arrays
    of it, and domains over either) on tables and partitioned tables. Views and
    materialized views are not reported: their columns follow the tables they read.

    ## Why is this bad?
    A `timestamp` is a wall-clock reading with no zone: `now()` is stored in the
    session's TimeZone and silently shifts when a client, a worker or the server runs
    in another zone, and comparisons across a DST change go wrong. Leases, wake-up
    times and retention windows computed from such values expire early or late.

    ## Example
    ```sql
    CREATE TABLE agent.jobs (id bigint PRIMARY KEY, wake_at timestamp NOT NULL);
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.jobs (id bigint PRIMARY KEY, wake_at timestamptz NOT NULL);
    ```
    Converting an existing column rewrites the table unless the session TimeZone is
    UTC (then PostgreSQL 12+ skips the rewrite): `SET timezone = 'UTC'; ALTER TABLE
    ... ALTER COLUMN wake_at TYPE timestamptz`.

    ## References
    - https://wiki.postgresql.org/wiki/Don%27t_Do_This#Don.27t_use_timestamp_.28without_time_zone.29
    - https://www.postgresql.org/docs/current/datatype-datetime.html
    """

    code = "ADV106"
    name = "timestamp-without-time-zone"
    severity = "warning"
    group = "generic"
    query = columns_of_type("timestamp")

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            column = f"{row['table_name']}.{row['column_name']}"
            yield self.finding(
                f"{column} is {row['type']}: its values shift with the writer's TimeZone.",
                f"ALTER TABLE {row['table_name']} ALTER COLUMN {row['column_name']} TYPE timestamptz "
                "(with SET timezone = 'UTC' to skip the rewrite)",
                object=column,
            )
