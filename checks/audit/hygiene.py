"""Index hygiene alongside the plans.

Catalog-only index rules (verify's FK without index, duplicate, redundant by
definition, invalid) come in as `catalog_checks`, functions the caller passes (the CLI
passes `agentddl.checks.verify.index_findings`: the families never import each other);
the workload-aware rules are here: an index no path's plan and no constraint uses, a
single-column index on a column with few distinct values (pg_stats after ANALYZE), an
index keyed on a JSON blob.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.checks.audit.fkactions import ForeignKey, covering
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.rules.index_on_json_blob import IndexOnJsonBlob
from agentddl.checks.audit.rules.low_cardinality_index import LowCardinalityIndex
from agentddl.checks.audit.rules.unused_index import UnusedIndex
from agentddl.checks.audit.usage import Usage, megabytes
from agentddl.checks.core.findings import Finding
from agentddl.generator.model import SchemaModel

# A catalog-only check: (connection, schema) -> findings, e.g. verify.index_findings.
CatalogCheck = Callable[[psycopg.Connection[Any], str], list[Finding]]

LOW_DISTINCT = 10  # a full (non-partial) single-column B-tree on fewer distinct values is low-cardinality
LOW_CARDINALITY_MIN_ROWS = 10_000  # on a smaller table few distinct values is no verdict

_COLUMNS = """
SELECT c.relname, a.attname, coalesce(s.n_distinct, 0), t.typname
FROM pg_attribute AS a
JOIN pg_class AS c ON c.oid = a.attrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_type AS t ON t.oid = a.atttypid
LEFT JOIN pg_stats AS s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
"""


def hygiene_findings(
    conn: psycopg.Connection[Any],
    model: SchemaModel | None,
    catalog: Catalog,
    results: Iterable[PathResult],
    fk_indexes: frozenset[str],
    catalog_checks: Sequence[CatalogCheck] = (),
    in_place: bool = False,
) -> list[Finding]:
    """The catalog checks' findings plus the workload rules. fk_indexes: indexes some
    foreign key's lookup needs (in use even when no query plan shows them). In place
    unused indexes are the caller's: a clone's what-if, else unused_in_place."""
    schema = catalog.schema
    found = [finding for check in catalog_checks for finding in check(conn, schema)]
    used = {i for r in results if r.plan for i in r.plan.indexes} | fk_indexes
    if not in_place and model is not None:
        found += _unused(catalog, used, _declared_in_use(model))
    stats = {
        (t, c): (float(n), typ) for t, c, n, typ in conn.execute(_COLUMNS, {"schema": schema}).fetchall()
    }
    found += _low_cardinality(catalog, stats)
    found += _json_keys(catalog, stats)
    return found


def _declared_in_use(model: SchemaModel) -> dict[str, bool]:
    """Declared index -> whether an access path or constraint it says it serves exists."""
    names = {p.name for p in model.access_paths}
    for table in model.tables:
        names |= {c.name for c in table.checks} | {f.name for f in table.foreign_keys}
        names |= {u.name for u in table.uniques} | {table.pk_name}
    return {i.name: i.unique or any(s in names for s in i.serves) for i in model.indexes}


def _unused(catalog: Catalog, used: set[str], declared: dict[str, bool]) -> list[Finding]:
    """Declared indexes that serve nothing that exists; undeclared ones no plan uses.
    (A declared index whose path planned without it is the plan's business: at small
    volume the planner rightly ignores indexes on tiny tables.)"""
    return [
        UnusedIndex.finding(
            f"No access path or constraint uses {index}: every write pays for it.",
            "drop it, or add the query that needs it to the audited workload (--queries)",
            object=f"{catalog.schema}.{index}",
        )
        for index in sorted(catalog.index_table)
        if index not in catalog.constraint_indexes
        and index not in catalog.unique
        and (not declared[index] if index in declared else index not in used)
    ]


@dataclass(frozen=True)
class InPlaceFacts:
    usage: Usage
    fks: tuple[ForeignKey, ...]
    large_rows: float


def unused_in_place(catalog: Catalog, used: set[str], facts: InPlaceFacts) -> list[Finding]:
    """Without a clone to ask: ADA111 for each index of a large table that enforces
    nothing and no audited path reads (see unused_finding)."""
    return [
        unused_finding(catalog, index, facts)
        for index in sorted(catalog.index_table)
        if index not in used
        and index not in catalog.constraint_indexes
        and index not in catalog.unique
        and catalog.rows.get(catalog.index_table[index], 0.0) >= facts.large_rows
    ]


def unused_finding(catalog: Catalog, index: str, facts: InPlaceFacts) -> Finding:
    """ADA111 for an index no audited path reads: a warning when production's counter
    agrees (0 scans), an info when it does not (a statement outside the workload reads
    it) or when the index is the only one a foreign key's lookups can use (what dropping
    it would cost is said)."""
    table = catalog.index_table[index]
    usage = facts.usage.of(index)
    counted = f"pg_stat_user_indexes counts {usage.scans:,} scans since {facts.usage.since}"
    size = megabytes(usage.bytes)
    covers = [
        fk
        for fk in facts.fks
        if covering(fk, index, catalog)
        and not any(covering(fk, other, catalog) for other in catalog.index_table if other != index)
    ]
    if covers:
        fk = covers[0]
        return UnusedIndex.finding(
            f"No audited path reads {index} ({size}; {counted}), but it is the only index foreign key "
            f"{fk.name} can use: without it every DELETE or key UPDATE of a {catalog.qualified(fk.parent)} "
            f"row scans {catalog.qualified(table)} (~{catalog.rows.get(table, 0.0):,.0f} rows) for "
            f"referencing rows ({fk.on_delete}).",
            "keep it while parent rows are deleted or re-keyed; drop it only together with the foreign key",
            severity="info",
            object=catalog.qualified(index),
        )
    if usage.scans > 0:
        return UnusedIndex.finding(
            f"No audited path reads {index} ({size}), yet {counted}: a statement outside the audited "
            "workload uses it.",
            "add that statement to the workload (--queries, --from-stats) to judge the index",
            severity="info",
            object=catalog.qualified(index),
        )
    return UnusedIndex.finding(
        f"No audited path reads {index} and {counted}: its {size} are written on every change "
        f"to {catalog.qualified(table)} for no read.",
        f"DROP INDEX CONCURRENTLY {catalog.qualified(index)}",
        object=catalog.qualified(index),
    )


def _low_cardinality(catalog: Catalog, stats: dict[tuple[str, str], tuple[float, str]]) -> list[Finding]:
    findings = []
    for index, columns in sorted(catalog.index_columns.items()):
        table = catalog.index_table[index]
        partial, method = index in catalog.partial, catalog.methods.get(index, "btree")
        small = catalog.rows.get(table, 0.0) < LOW_CARDINALITY_MIN_ROWS  # its stats say little
        if len(columns) != 1 or partial or method != "btree" or index in catalog.unique or small:
            continue
        n_distinct, _ = stats.get((table, columns[0]), (0.0, ""))
        distinct = n_distinct if n_distinct > 0 else -n_distinct * catalog.rows.get(table, 0.0)
        if 0 < distinct < LOW_DISTINCT:
            findings.append(
                LowCardinalityIndex.finding(
                    f"{index} indexes {table}.{columns[0]}, which has ~{distinct:.0f} distinct values: "
                    "each key matches a large share of the table, so the planner rarely uses it.",
                    f"make it partial on the value the queries look for (WHERE {columns[0]} = ...) "
                    "or lead a composite with it",
                    object=f"{catalog.schema}.{index}",
                )
            )
    return findings


def _json_keys(catalog: Catalog, stats: dict[tuple[str, str], tuple[float, str]]) -> list[Finding]:
    """B-tree (or hash) keys on a whole JSON document; GIN on jsonb is the index made for it."""
    return [
        IndexOnJsonBlob.finding(
            f"{index} keys on {catalog.index_table[index]}.{column}, a JSON document: large, "
            "rewritten on every change and compared whole.",
            "index the extracted field instead ((payload->>'field')), or use GIN for containment",
            object=f"{catalog.schema}.{index}",
        )
        for index, columns in sorted(catalog.index_columns.items())
        for column in columns
        if stats.get((catalog.index_table[index], column), (0.0, ""))[1] in ("json", "jsonb")
        and catalog.methods.get(index, "btree") in ("btree", "hash")
    ]
