"""ADV120 retention-path."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.catalog_rules.types import Connection, Row, Rule, VerifyContext, fetch
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.partitions import bounds_and_instants
from agentddl.generator.model import SchemaModel, Table

TABLES_SQL = """
    SELECT c.relname AS table_name, c.relkind::text AS kind,
           EXISTS (SELECT FROM pg_inherits AS inh JOIN pg_class AS p ON p.oid = inh.inhrelid
                   WHERE inh.inhparent = c.oid AND pg_get_expr(p.relpartbound, p.oid) = 'DEFAULT')
               AS has_default,
           ARRAY(SELECT i.relname::text FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid
                 WHERE x.indrelid = c.oid AND x.indisvalid) AS valid_index_names
    FROM pg_class AS c
    WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace
      AND c.relkind IN ('r', 'p') AND NOT c.relispartition
"""
FUNCTION_SQL = """
    SELECT EXISTS (SELECT FROM pg_proc WHERE pronamespace = quote_ident(%(schema)s)::regnamespace
                   AND proname = 'maintain_partitions') AS builtin,
           to_regclass('partman.part_config') IS NOT NULL AS partman
"""
CUTOFF_SQL = """
    SELECT now() - %(keep)s * interval '1 second' - ('1 ' || %(unit)s)::interval AS cutoff
"""
PARTMAN_SQL = """
    SELECT parent_table FROM partman.part_config WHERE retention IS NOT NULL
"""


class RetentionPath(Rule):
    """A table the profile expires has no working way to expire its rows.

    ## What it does
    For each table the profile partitions with a retention window, requires the
    live table to be partitioned and a maintenance path: the generated
    `maintain_partitions()` function and no DEFAULT partition (rows there never
    expire with a partition drop), or (with `retention.partition_manager:
    pg_partman`) a `partman.part_config` row with a retention for it (pg_partman 4
    keeps a DEFAULT partition as a safety net and reports rows in it with
    `partman.check_default()`). For tables the
    profile expires by batched deletes (its `purge_*` access paths), requires the
    valid index each batch finds its rows by. A partition wholly older than the
    retention window plus one period is reported too: nothing is dropping them.

    ## Why is this bad?
    History that is meant to expire after 30 days grows without bound: disks fill,
    vacuum and backups slow down, and deleting a year of events later rewrites
    everything in one go, where dropping a partition per day costs nothing.

    ## Example
    ```sql
    DROP FUNCTION agent.maintain_partitions(timestamptz);
    ```

    ## Use instead
    Re-create the maintenance from the profile (`agentddl generate` writes it into
    schema.sql and PLAN.md), and schedule it.

    ## References
    - https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-OVERVIEW
    - https://github.com/pgpartman/pg_partman
    """

    code = "ADV120"
    name = "retention-path"
    severity = "error"
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        assert context.model is not None
        schema = context.schemas[0]
        params = {"schema": schema}
        tables = {row["table_name"]: row for row in fetch(connection, TABLES_SQL, params)}
        managers = fetch(connection, FUNCTION_SQL, params)[0]
        managed = set()
        if managers["partman"]:
            managed = {row["parent_table"] for row in fetch(connection, PARTMAN_SQL)}
        for table in context.model.tables:
            row = tables.get(table.name)
            if row is None:
                continue  # declared-column reports the missing table
            if table.partitioning is not None:
                yield from self._partitioned(f"{schema}.{table.name}", row, context.model, managers, managed)
                if row["kind"] == "p":
                    yield from self._expired(connection, schema, table)
        yield from self._purges(schema, tables, context.model)

    def _partitioned(
        self, name: str, row: Row, model: SchemaModel, managers: Row, managed: set[str]
    ) -> Iterator[Finding]:
        if row["kind"] != "p":
            yield self.finding(
                f"{name} is not partitioned: its history can only expire by DELETE.",
                "migrate it to the partitioned table the profile declares",
                object=name,
            )
            return
        uses_partman = model.profile.retention.partition_manager == "pg_partman"
        if row["has_default"] and not uses_partman:
            yield self.finding(
                f"{name} has a DEFAULT partition: rows there never expire.",
                "move its rows to ranged partitions and drop the DEFAULT partition",
                object=name,
            )
        if uses_partman and name not in managed:
            yield self.finding(
                f"pg_partman has no retention configured for {name}.",
                "re-run the <table>_partman block of schema.sql",
                object=name,
            )
        if not uses_partman and not managers["builtin"]:
            yield self.finding(
                f"{name} expires by maintain_partitions(), which does not exist.",
                "re-create maintain_partitions() from schema.sql and schedule it",
                object=name,
            )

    def _expired(self, connection: Connection, schema: str, table: Table) -> Iterator[Finding]:
        """Partitions wholly older than retention plus one period: nothing is dropping them."""
        assert table.partitioning is not None
        part = table.partitioning
        params = {"schema": schema, "table": table.name, "unit": part.granularity}
        params["keep"] = str(part.retention_seconds)
        bounds, instants = bounds_and_instants(connection, params, CUTOFF_SQL)
        cutoff = instants["cutoff"]
        for row in bounds:
            if row["upper_bound"] <= cutoff:
                yield self.finding(
                    f"{schema}.{row['partition']} ends {row['upper_bound']:%Y-%m-%d}, past the "
                    f"{part.retention_seconds // 86400}-day retention of {schema}.{table.name}: "
                    "nothing is dropping expired partitions.",
                    "run the partition maintenance and check its schedule (PLAN.md)",
                    object=f"{schema}.{row['partition']}",
                )

    def _purges(self, schema: str, tables: dict[str, Row], model: SchemaModel) -> Iterator[Finding]:
        for path in model.access_paths:
            if not path.name.startswith("purge_") or path.index is None or path.table not in tables:
                continue
            if path.index not in tables[path.table]["valid_index_names"]:
                yield self.finding(
                    f"retention of {schema}.{path.table} ({path.name}) has no valid {path.index}: "
                    "every batch scans the table.",
                    f"re-create {schema}.{path.index} concurrently as declared",
                    object=f"{schema}.{path.table}",
                )
