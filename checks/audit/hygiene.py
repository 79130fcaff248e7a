"""Index hygiene alongside the plans.

Catalog-only index rules (verify's FK without index, duplicate, redundant by
definition, invalid) come in as `catalog_checks`, functions the caller passes (`run`
passes the shared `catalog_rules.indexes.index_findings`: audit never imports verify);
the workload-aware rules (`IndexRule`: an index no path's plan and no constraint uses,
a single-column index on a column with few distinct values, an index keyed on a JSON
blob) are asked here about the facts they read: the catalog, pg_stats after ANALYZE,
the indexes the plans used and what the model declares. In place, `UnreadIndexRule`s
are asked about the indexes no audited path reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.checks.audit.fkactions import ForeignKey
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.audit.usage import Usage
from agentddl.checks.core.findings import Finding
from agentddl.generator.model import SchemaModel

# A catalog-only check: (connection, schema) -> findings, e.g. verify.index_findings.
CatalogCheck = Callable[[psycopg.Connection[Any], str], list[Finding]]

_COLUMNS = """
SELECT c.relname, a.attname, coalesce(s.n_distinct, 0), t.typname
FROM pg_attribute AS a
JOIN pg_class AS c ON c.oid = a.attrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_type AS t ON t.oid = a.atttypid
LEFT JOIN pg_stats AS s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
"""


@dataclass(frozen=True)
class IndexFacts:
    """The schema's indexes with what the workload made of them."""

    catalog: Catalog
    stats: dict[tuple[str, str], tuple[float, str]]  # (table, column) -> (pg_stats n_distinct, type)
    used: set[str]  # indexes some path's plan or some foreign key's lookup uses
    # declared index -> whether an access path or constraint it says it serves exists
    # (None: no model, or in place, where unused indexes are the what-if's)
    declared: dict[str, bool] | None


class IndexRule(AuditRule):
    """A verdict on the schema's indexes against the workload."""

    def check(self, seen: IndexFacts) -> list[Finding]:
        raise NotImplementedError


@dataclass(frozen=True)
class InPlaceFacts:
    usage: Usage
    fks: tuple[ForeignKey, ...]
    large_rows: float


class UnreadIndexRule(AuditRule):
    """In place: a verdict on the indexes no audited path reads."""

    def unread(self, catalog: Catalog, used: set[str], facts: InPlaceFacts) -> list[Finding]:
        """Without a clone to ask: the indexes not in `used` it judges."""
        raise NotImplementedError

    def not_needed(self, catalog: Catalog, index: str, facts: InPlaceFacts) -> Finding:
        """`index`, which no audited path reads, the clone's workload did without."""
        raise NotImplementedError


def hygiene_findings(
    conn: psycopg.Connection[Any],
    model: SchemaModel | None,
    catalog: Catalog,
    results: Iterable[PathResult],
    fk_indexes: frozenset[str],
    catalog_checks: Sequence[CatalogCheck] = (),
    in_place: bool = False,
) -> list[Finding]:
    """The catalog checks' findings plus the index rules'. fk_indexes: indexes some
    foreign key's lookup needs (in use even when no query plan shows them). In place
    unused indexes are the caller's: a clone's what-if, else unused_in_place."""
    schema = catalog.schema
    found = [finding for check in catalog_checks for finding in check(conn, schema)]
    used = {i for r in results if r.plan for i in r.plan.indexes} | fk_indexes
    declared = _declared_in_use(model) if not in_place and model is not None else None
    stats = {
        (t, c): (float(n), typ) for t, c, n, typ in conn.execute(_COLUMNS, {"schema": schema}).fetchall()
    }
    seen = IndexFacts(catalog, stats, used, declared)
    return found + [finding for rule in rules_of(IndexRule) for finding in rule.check(seen)]


def _declared_in_use(model: SchemaModel) -> dict[str, bool]:
    """Declared index -> whether an access path or constraint it says it serves exists."""
    names = {p.name for p in model.access_paths}
    for table in model.tables:
        names |= {c.name for c in table.checks} | {f.name for f in table.foreign_keys}
        names |= {u.name for u in table.uniques} | {table.pk_name}
    return {i.name: i.unique or any(s in names for s in i.serves) for i in model.indexes}


def unused_in_place(catalog: Catalog, used: set[str], facts: InPlaceFacts) -> list[Finding]:
    """Without a clone to ask: every unread-index rule's findings."""
    return [finding for rule in rules_of(UnreadIndexRule) for finding in rule.unread(catalog, used, facts)]


def unused_finding(catalog: Catalog, index: str, facts: InPlaceFacts) -> list[Finding]:
    """`index`, which no audited path reads and the clone's workload did without."""
    return [rule.not_needed(catalog, index, facts) for rule in rules_of(UnreadIndexRule)]
