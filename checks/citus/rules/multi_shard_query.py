"""ADS104 multi-shard-query."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from agentddl.checks.citus.routing import TableRef, confinement
from agentddl.checks.citus.types import CitusContext, QueryFile, Rule
from agentddl.checks.citus.walk import nodes
from agentddl.checks.core.findings import Finding, Severity


class MultiShardQuery(Rule):
    """A named query that does not confine a distributed table to one tenant.

    ## What it does
    Parses every named query (`queries.sql`, and each `--queries` file) with pglast and
    follows the equalities on the distribution column: each reference to a distributed
    table must be tied to a parameter or a constant, directly (`a.tenant_id = :tenant_id`)
    or through a join or a CTE whose tenant column is tied. A reference that is not is
    reported at its file:line:column: an error when the statement writes or locks rows
    (`INSERT`, `UPDATE`, `DELETE`, `FOR UPDATE`), a warning when it only reads.

    ## Why is this bad?
    A statement confined to one tenant touches one shard: Citus sends it to one worker.
    One that is not runs on every shard: a read fans out to all of them (fine for a rare
    operator's report, a bottleneck on a hot path), and Citus refuses `SELECT ... FOR
    UPDATE` across shards ("could not run distributed query with FOR UPDATE/SHARE
    commands"), which is every `FOR UPDATE SKIP LOCKED` queue claim across tenants.

    ## Example
    ```sql
    -- name: claim_run(worker_id)
    SELECT r.tenant_id, r.run_id FROM agent.runs AS r
    WHERE r.status = 'queued' ORDER BY r.priority DESC LIMIT 1 FOR UPDATE SKIP LOCKED;
    ```

    ## Use instead
    ```sql
    -- name: claim_run(tenant_id, worker_id)
    SELECT r.tenant_id, r.run_id FROM agent.runs AS r
    WHERE r.tenant_id = :tenant_id AND r.status = 'queued'
    ORDER BY r.priority DESC LIMIT 1 FOR UPDATE SKIP LOCKED;
    ```
    A worker serves a set of tenants and claims in each in turn (one router query each).

    ## References
    - https://docs.citusdata.com/en/stable/develop/reference_workarounds.html
    - https://github.com/citusdata/citus/issues/4647 (FOR UPDATE across shards)
    """

    code = "ADS104"
    name = "multi-shard-query"
    severity = "error"

    def check(self, context: CitusContext) -> Iterator[Finding]:
        columns = context.columns
        for query_file in context.query_files:
            for query in query_file.queries:
                untied = confinement(query.statement, context.layout, columns).untied()
                severity: Severity = "error" if _writes_or_locks(query.statement) else "warning"
                seen: set[str] = set()
                for ref in untied:
                    if ref.alias in seen:
                        continue
                    seen.add(ref.alias)
                    yield self._found(query_file, query.name, ref, columns[ref.table], severity)

    def _found(self, file: QueryFile, name: str, ref: TableRef, column: str, severity: Severity) -> Finding:
        line, col = file.source.position(ref.location)
        effect = (
            "it writes or locks rows on every shard (Citus refuses FOR UPDATE across shards)"
            if severity == "error"
            else "it reads every shard"
        )
        return self.finding(
            f"{name}: {ref.table} (as {ref.alias}) is not tied to one {column}: {effect}.",
            f"filter {ref.alias}.{column} = :{column} (or join it on {column} to a reference that is)",
            severity=severity,
            file=file.source.path,
            line=line,
            column=col,
            object=ref.table,
        )


def _writes_or_locks(statement: Any) -> bool:
    kinds = (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.LockingClause)
    return any(isinstance(node, kinds) for node in nodes(statement))
