"""Judging one access path's plan: findings named by the path.

A path passes when its plan reaches every large table through an index (or reads a
large share of it, where a sequential scan is the right plan), no large input is
sorted that an index should have delivered in order, partitions it names by the
partition key are pruned, and the index the model declares for it (or one whose key
starts with the declared key) serves it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog, PlanSummary, Scan
from agentddl.checks.audit.rules.declared_index_missing import DeclaredIndexMissing
from agentddl.checks.audit.rules.declared_index_not_used import DeclaredIndexNotUsed
from agentddl.checks.audit.rules.full_index_scan import FullIndexScan
from agentddl.checks.audit.rules.no_partition_pruning import NoPartitionPruning
from agentddl.checks.audit.rules.seq_scan_on_large_table import SeqScanOnLargeTable
from agentddl.checks.audit.rules.skip_scan import SkipScan
from agentddl.checks.audit.rules.slow_trigger import SlowTrigger
from agentddl.checks.audit.rules.sort_not_served_by_index import SortNotServedByIndex
from agentddl.checks.audit.rules.unselective_index_scan import UnselectiveIndexScan
from agentddl.checks.core.findings import Finding

# a large table read or sorted without an index: what a (hypothetical) index must fix
PLAN_ERRORS = frozenset(
    rule.code for rule in (SeqScanOnLargeTable, SortNotServedByIndex, UnselectiveIndexScan, FullIndexScan)
)


@dataclass(frozen=True)
class Thresholds:
    large_rows: float = 10_000  # a table (or partition) this big must be reached by an index
    sort_rows: float = 1_000  # sorting this many rows from a large table is a finding
    selective: float = 0.10  # a scan returning more than this share of its table may be sequential


def judge(path: AuditPath, plan: PlanSummary, catalog: Catalog, limits: Thresholds) -> list[Finding]:
    findings = _seq_scans(path, plan, catalog, limits)
    findings += _first_per_table(f for s in plan.scans if (f := _unselective(path, s, catalog, limits)))
    findings += _sorts(path, plan, catalog, limits)
    findings += _pruning(path, plan, catalog)
    big = [
        s
        for s in plan.scans
        if s.executed and catalog.rows.get(s.index or "", 0.0) >= limits.large_rows and not read_little(s)
    ]
    findings += _first_per_table(_skip_scan(path, s) for s in big if s.skip_scan)  # small partial: fine
    findings += _first_per_table(_full_index(path, s, catalog, limits) for s in big if s.full_index)
    findings += _slow_triggers(path, plan)
    declared = _declared(path, plan, catalog, limits)
    return findings + ([declared] if declared else [])


SLOW_TRIGGER_MS = 10.0
SLOW_TRIGGER_SHARE = 0.5


def _slow_triggers(path: AuditPath, plan: PlanSummary) -> list[Finding]:
    """ADA116: a trigger (a foreign key's action too) that took most of a write's time."""
    total = plan.actual_ms or 0.0
    return [
        SlowTrigger.finding(
            f"{path.name} spends {t.ms:,.1f} ms of {total:,.1f} ms in "
            + (f"the action of foreign key {t.constraint}" if t.constraint else f"trigger {t.name}")
            + f" on {t.relation} ({t.calls:,} call{'s' if t.calls != 1 else ''}): "
            "the plan does not show that work.",
            "index what the trigger looks up (for a foreign key: the referencing columns)",
            object=path.name,
        )
        for t in plan.triggers
        if t.ms >= SLOW_TRIGGER_MS and t.ms >= SLOW_TRIGGER_SHARE * total
    ]


WHOLE_INDEX_SHARE = 0.10  # an index scan that touched fewer of its pages did not read it whole
FEW_BUFFERS = 8  # an early stop: a descent (root, branch, leaf) and a few heap pages


def read_little(scan: Scan) -> bool:
    """Under ANALYZE, a scan whose leading column is free yet touched only a few pages
    (a LIMIT met at the first entries): its node's shape says "whole index", its
    measured work says otherwise. Judged on what it did, not on its shape."""
    if scan.buffers is None:
        return False
    return scan.buffers < max(FEW_BUFFERS, WHOLE_INDEX_SHARE * scan.index_pages)


def measured(scan: Scan) -> str:
    """`; measured: read N rows, returned M, T ms` where ANALYZE ran it ('' otherwise)."""
    if scan.read is None or scan.returned is None or scan.ms is None:
        return ""
    return f" (measured: read {scan.read:,.0f} rows, returned {scan.returned:,.0f}, {scan.ms:,.1f} ms)"


def _first_per_table(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per rule and message head: the same node on every partition is one."""
    seen: dict[tuple[str, str], Finding] = {}
    for f in findings:
        seen.setdefault((f.code, f.message.split(":")[0]), f)
    return list(seen.values())


def _seq_scans(path: AuditPath, plan: PlanSummary, catalog: Catalog, limits: Thresholds) -> list[Finding]:
    """One ADA101 per table read by sequential scans of its large relations (a table, or
    any of its partitions) for a small share of their rows."""
    by_table: dict[str, list[Scan]] = {}
    for scan in plan.scans:
        size = catalog.rows.get(scan.relation, 0.0)
        if (
            scan.node == "Seq Scan"
            and scan.executed
            and size >= limits.large_rows
            and (scan.rows <= limits.selective * size)
        ):
            by_table.setdefault(scan.table, []).append(scan)
    findings = []
    for table, scans in by_table.items():
        size = sum(catalog.rows.get(s.relation, 0.0) for s in scans)
        actual = measured(_summed(scans))
        where = (
            f" ({len(scans)} of {catalog.partitions[table]} partitions)"
            if table in catalog.partitions
            else ""
        )
        findings.append(
            SeqScanOnLargeTable.finding(
                f"{path.name} reads {catalog.schema}.{table}{where}, {size:,.0f} rows, by sequential "
                f"scan to find ~{sum(s.rows for s in scans):,.0f}{actual}: its cost grows with the table.",
                "add an index leading with the path's equality columns (see the suggestion)",
                object=path.name,
            )
        )
    return findings


def _summed(scans: list[Scan]) -> Scan:
    """One table's scans (its partitions) as one, for the measured figures."""
    first = scans[0]
    if len(scans) == 1 or any(s.read is None for s in scans):
        return first
    return replace(
        first,
        read=sum(s.read or 0.0 for s in scans),
        returned=sum(s.returned or 0.0 for s in scans),
        ms=sum(s.ms or 0.0 for s in scans),
    )


def _unselective(path: AuditPath, scan: Scan, catalog: Catalog, limits: Thresholds) -> Finding | None:
    """An index on a large table that hands over far more rows than the path keeps: it
    matched only a prefix (a tenant, a status) and the rest is filtered row by row."""
    size = catalog.rows.get(scan.relation, 0.0)
    fetched = scan.fetched
    if fetched is None or not scan.executed or size < limits.large_rows:
        return None
    if fetched < limits.large_rows or fetched < UNSELECTIVE_RATIO * max(scan.rows, 1.0):
        return None
    return UnselectiveIndexScan.finding(
        f"{path.name} reads ~{fetched:,.0f} index entries of {catalog.schema}.{scan.table} to keep "
        f"~{scan.rows:,.0f}{measured(scan)}: the index matches only a prefix of the path's predicate.",
        "extend the index with the columns the filter checks (equality first)",
        object=path.name,
    )


UNSELECTIVE_RATIO = 20  # entries read per row kept


def _sorts(path: AuditPath, plan: PlanSummary, catalog: Catalog, limits: Thresholds) -> list[Finding]:
    large = {t for t, rows in catalog.rows.items() if rows >= limits.large_rows}
    return [
        SortNotServedByIndex.finding(
            f"{path.name} sorts ~{sort.input_rows:,.0f} rows of {', '.join(sorted(sort.tables & large))} "
            f"by {', '.join(sort.keys)}: an index in that order would return them presorted.",
            "index the equality columns, then the ORDER BY columns (with their DESC)",
            object=path.name,
        )
        for sort in plan.sorts
        if not sort.presorted and sort.input_rows >= limits.sort_rows and sort.tables & large
    ]


def _pruning(path: AuditPath, plan: PlanSummary, catalog: Catalog) -> list[Finding]:
    """A path that compares a partition key must not read every partition. Judged on
    executed plans only: partitions pruned at run time (a key from a join or CTE) show as
    never executed under ANALYZE, while a plain plan lists them all."""
    findings: list[Finding] = []
    if plan.actual_ms is None:
        return findings
    for table, total in catalog.partitions.items():
        keys = catalog.partition_key.get(table, ())
        if total < 2 or not any(_compares(path.sql, k) for k in keys):
            continue
        read = {
            s.relation
            for s in plan.scans
            if s.table == table and s.executed and s.relation not in ("", table)
        }
        if len(read) >= total:
            findings.append(
                NoPartitionPruning.finding(
                    f"{path.name} filters by {', '.join(keys)} but reads all {total} partitions of "
                    f"{catalog.schema}.{table}: the key's value could not pick the partitions.",
                    f"compare {', '.join(keys)} with a value known at planning or execution start",
                    object=path.name,
                )
            )
    return findings


# between a column and its comparison: closing parentheses of a function around it
# (date_trunc('day', x) =) and casts (x::date >=): both defeat pruning, and are comparisons
_WRAPPED = r"(?:\s*\)|\s*::\s*\w+(?:\s+\w+)*)*"


def _compares(statement: str, column: str) -> bool:
    """The statement compares `column` (not merely selects it), bare or wrapped in a cast
    or function call."""
    name = re.escape(column)
    return (
        re.search(
            rf"\b{name}\b{_WRAPPED}\s*(?:=|<|>|\bIN\b|\bBETWEEN\b)|(?:=|<|>)\s*(?:\w+\.)?{name}\b",
            statement,
            re.IGNORECASE,
        )
        is not None
    )


def _skip_scan(path: AuditPath, scan: Scan) -> Finding:
    searches = f", {scan.searches} index searches" if scan.searches is not None else ""
    return SkipScan.finding(
        f"{path.name} uses {scan.index} as a skip scan (PostgreSQL 18): its condition leaves the "
        f"leading column free, so it descends once per distinct leading value{searches}.",
        "lead an index with the path's equality columns",
        object=path.name,
    )


def _full_index(path: AuditPath, scan: Scan, catalog: Catalog, limits: Thresholds) -> Finding:
    return FullIndexScan.finding(
        f"{path.name} reads all of {scan.index} on {catalog.schema}.{scan.table}{measured(scan)}: its "
        "condition leaves the leading column free, so before PostgreSQL 18 every entry is checked.",
        "lead an index with the path's equality columns",
        object=path.name,
    )


def _declared(path: AuditPath, plan: PlanSummary, catalog: Catalog, limits: Thresholds) -> Finding | None:
    index = path.declared
    if index is None:
        return None
    if index not in catalog.index_table:
        return DeclaredIndexMissing.finding(
            f"{path.name} lost its index: {catalog.schema}.{index}, declared for it, is not in the database.",
            f"create {index} as the schema declares it",
            object=path.name,
        )
    if serves(index, plan, catalog) or catalog.rows.get(catalog.index_table[index], 0.0) < limits.large_rows:
        return None  # served, or a small table the planner rightly reads whole
    used = ", ".join(sorted(plan.indexes)) or "no index"
    return DeclaredIndexNotUsed.finding(
        f"{path.name} is planned with {used}, not its declared {index}.",
        "fine when the plan passes; otherwise check the query still matches the index",
        object=path.name,
    )


def serves(index: str, plan: PlanSummary, catalog: Catalog) -> bool:
    """The plan uses `index`, an index whose key starts with its key, or inserts into
    its table (a unique index is then checked on every insert)."""
    key = catalog.index_columns.get(index, ())
    for used in plan.indexes:
        if used == index or (
            key
            and catalog.index_table.get(used) == catalog.index_table.get(index)
            and catalog.index_columns.get(used, ())[: len(key)] == key
        ):
            return True
    return index in catalog.unique and catalog.index_table.get(index) in plan.inserts
