"""Judging one access path's plan: every plan rule (`PlanRule`) asked about it.

A path passes when its plan reaches every large table through an index (or reads a
large share of it, where a sequential scan is the right plan), no large input is
sorted that an index should have delivered in order, partitions it names by the
partition key are pruned, and the index the model declares for it (or one whose key
starts with the declared key) serves it. Each of those verdicts is a rule module's
(checks/audit/rules/); here are the facts they read and the measures they share.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog, PlanSummary, Scan
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.core.findings import Finding


@dataclass(frozen=True)
class Thresholds:
    large_rows: float = 10_000  # a table (or partition) this big must be reached by an index
    sort_rows: float = 1_000  # sorting this many rows from a large table is a finding
    selective: float = 0.10  # a scan returning more than this share of its table may be sequential
    read_share: float = 0.5  # a path reading this share of a large table is not served (--max-read-share)
    max_path_ms: float | None = None  # a path's execution time budget (--max-path-ms; `-- budget:` wins)


@dataclass(frozen=True)
class TableRead:
    """The rows one path reads of one table, over every node of its plan."""

    table: str  # the root table
    rows: float  # rows read: measured (returned + removed by filters, every loop) or estimated
    size: float  # the table's rows (partitions summed)
    measured: bool  # every scan counted ran under EXPLAIN ANALYZE
    scans: tuple[Scan, ...]

    @property
    def share(self) -> float:
        return self.rows / self.size if self.size else 0.0


@dataclass(frozen=True)
class PlanFacts:
    """One path's plan with what the plan rules ask of it."""

    path: AuditPath
    plan: PlanSummary
    catalog: Catalog
    limits: Thresholds

    def large_index_scans(self) -> list[Scan]:
        """Executed scans of a large index that did not stop after a few pages."""
        large = self.limits.large_rows
        return [
            s
            for s in self.plan.scans
            if s.executed and self.catalog.rows.get(s.index or "", 0.0) >= large and not read_little(s)
        ]

    def table_reads(self) -> list[TableRead]:
        """Per large table, the rows every node of the plan reads of it (sub-plans, InitPlans,
        CTEs and the scan beneath a write included), by table name. Under ANALYZE what ran;
        planned only, a sequential scan reads its relation and another scan its estimate,
        and a scan beneath a Limit is left out (the executor may stop it early). A search
        an index should serve (`unindexed_search`) is left to the rule that reports it."""
        by_table: dict[str, list[Scan]] = {}
        for s in self.plan.scans:
            counted = s.relation and s.node.endswith("Scan") and s.node != "Bitmap Index Scan"
            if not counted or not s.executed or unindexed_search(s, self.catalog, self.limits):
                continue
            if s.read is None and s.limited:
                continue
            by_table.setdefault(s.table, []).append(s)
        reads = [
            TableRead(
                table,
                sum(_rows_read(s) for s in scans),
                self.catalog.rows.get(table, 0.0),
                all(s.read is not None for s in scans),
                tuple(scans),
            )
            for table, scans in sorted(by_table.items())
        ]
        return [r for r in reads if r.size >= self.limits.large_rows]


def _rows_read(scan: Scan) -> float:
    if scan.read is not None:
        return scan.read
    return scan.size if scan.node == "Seq Scan" else scan.rows


def unindexed_search(scan: Scan, catalog: Catalog, limits: Thresholds) -> bool:
    """A sequential scan of a large relation (a table or one partition) expected to keep
    at most `selective` of its rows: a search an index should serve (ADA101's verdict)."""
    size = catalog.rows.get(scan.relation, 0.0)
    return (
        scan.node == "Seq Scan"
        and scan.executed
        and size >= limits.large_rows
        and scan.rows <= limits.selective * size
    )


class PlanRule(AuditRule):
    """A verdict on one path's plan."""

    # where its findings come among a path's (the generic plan's verdict quotes the first error)
    order: ClassVar[int]
    # a large table read or sorted without an index: what a (hypothetical) index must fix
    plan_error: ClassVar[bool] = False

    def check(self, seen: PlanFacts) -> list[Finding]:
        raise NotImplementedError


def judge(path: AuditPath, plan: PlanSummary, catalog: Catalog, limits: Thresholds) -> list[Finding]:
    """Every plan rule's findings on `path`'s plan, in the rules' order."""
    seen = PlanFacts(path, plan, catalog, limits)
    return [finding for rule in _plan_rules() for finding in rule.check(seen)]


@cache
def _plan_rules() -> tuple[PlanRule, ...]:
    return tuple(sorted(rules_of(PlanRule), key=lambda rule: rule.order))


@cache
def plan_errors() -> frozenset[str]:
    """The codes of the plan rules an index must fix (see `PlanRule.plan_error`)."""
    return frozenset(rule.code for rule in _plan_rules() if rule.plan_error)


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


def first_per_table(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per rule and message head: the same node on every partition is one."""
    seen: dict[tuple[str, str], Finding] = {}
    for f in findings:
        seen.setdefault((f.code, f.message.split(":")[0]), f)
    return list(seen.values())
