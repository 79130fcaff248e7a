"""ADV125 partition-runway."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.catalog_rules.types import Connection, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.partitions import bounds_and_instants
from agentddl.generator.model import Table

HORIZON_SQL = """
    SELECT now() AS now,
           date_trunc(%(unit)s, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
             + %(runway)s * ('1 ' || %(unit)s)::interval AS horizon,
           EXISTS (SELECT FROM pg_inherits AS inh JOIN pg_class AS child ON child.oid = inh.inhrelid
                   WHERE inh.inhparent = to_regclass(quote_ident(%(schema)s) || '.' || quote_ident(%(table)s))
                     AND pg_get_expr(child.relpartbound, child.oid) = 'DEFAULT') AS has_default
"""
# Where no partition holds a row, a DEFAULT partition (pg_partman keeps one) takes it:
# the insert succeeds, but the partition for that range can no longer be created while
# the DEFAULT holds rows of it.
_CONSEQUENCE = {
    False: "writes there will fail",
    True: "writes there pile up in the DEFAULT partition, which then blocks creating theirs",
}


class PartitionRunway(Rule):
    """A partitioned table whose partitions don't reach far enough ahead of now.

    ## What it does
    For every table the profile partitions, reads the live partitions' bounds and
    requires them to cover, without a gap, from now to the start of the current
    period plus `retention.runway` periods (the partition maintenance creates one
    period more, so a job that runs at least once per period never trips this).

    ## Why is this bad?
    A row whose partition key falls where no partition exists is refused ("no
    partition of relation found for row"): when the runway runs out every step of
    every run fails at once, typically at midnight after the maintenance job has
    been failing quietly for days.

    ## Example
    ```sql
    -- the maintenance job's schedule was lost in a migration of the cron host
    SELECT partition FROM ... WHERE upper_bound < now() + interval '1 day';
    ```

    ## Use instead
    Run the maintenance now and fix its schedule (PLAN.md has both):
    ```sql
    SELECT * FROM agent.maintain_partitions();      -- builtin
    CALL partman.run_maintenance_proc();            -- pg_partman
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-partitioning.html
    """

    code = "ADV125"
    name = "partition-runway"
    severity = "error"
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        assert context.model is not None
        schema = context.schemas[0]
        for table in context.model.tables:
            if table.partitioning is None:
                continue
            gap, has_default = _first_gap(connection, schema, table)
            if gap is not None:
                yield self.finding(
                    f"{schema}.{table.name} has no partition from {gap:%Y-%m-%d %H:%M} UTC on, inside "
                    f"the {table.partitioning.runway} {table.partitioning.granularity}(s) runway: "
                    f"{_CONSEQUENCE[has_default]}.",
                    "run the partition maintenance now and check its schedule (PLAN.md)",
                    object=f"{schema}.{table.name}",
                )


def _first_gap(connection: Connection, schema: str, table: Table) -> tuple[object | None, bool]:
    """The first instant between now and the runway's horizon no ranged partition holds
    (None: no gap), and whether a DEFAULT partition takes the rows that fall there."""
    assert table.partitioning is not None
    part = table.partitioning
    params = {"schema": schema, "table": table.name, "unit": part.granularity, "runway": part.runway}
    bounds, window = bounds_and_instants(connection, params, HORIZON_SQL)
    cursor, horizon = window["now"], window["horizon"]
    for row in bounds:
        if row["lower_bound"] <= cursor < row["upper_bound"]:
            cursor = row["upper_bound"]
    return (cursor if cursor < horizon else None), bool(window["has_default"])
