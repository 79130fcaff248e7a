"""Reading an EXPLAIN (FORMAT JSON) plan: which relations are reached how.

Pure functions over the plan document. Partitions and partition indexes are mapped to
their parent table / parent index (the catalog facts come in as a `Catalog`), so a
finding names agent.events, not agent.events_p20261201. Version-aware where the plan's
meaning changed: a B-tree Index Scan whose condition does not constrain the index's
leading column is, on PostgreSQL 18, a skip scan (one descent per distinct leading value,
"Index Searches" under ANALYZE) and, before 18, a read of the whole index; neither is
the selective range read the node's name suggests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

INDEX_NODES = ("Index Scan", "Index Only Scan", "Bitmap Index Scan")
SEQ_NODES = ("Seq Scan",)  # Parallel Seq Scan is Node Type "Seq Scan" with "Parallel Aware"


@dataclass(frozen=True)
class Catalog:
    """What plan reading needs from pg_catalog for the audited schema."""

    schema: str
    rows: dict[str, float]  # table or index -> estimated rows / entries (partitioned: sum of partitions)
    parent: dict[str, str]  # partition or partition index -> its root table / root index
    partitions: dict[str, int]  # partitioned table -> number of partitions
    partition_key: dict[str, tuple[str, ...]]  # partitioned table -> key columns
    index_table: dict[str, str]  # root index -> its table
    index_columns: dict[str, tuple[str, ...]]  # root index -> key columns ("(expr)" for expressions)
    unique: frozenset[str] = frozenset()  # root indexes that enforce uniqueness
    constraint_indexes: frozenset[str] = frozenset()  # root indexes backing a PK/unique/exclusion
    lossy: frozenset[str] = frozenset()  # root indexes whose bitmaps are page ranges (BRIN)
    partial: frozenset[str] = frozenset()  # root indexes with a WHERE predicate
    methods: dict[str, str] = field(default_factory=dict)  # root index -> access method (btree, gin, ...)
    leaves: dict[str, tuple[str, ...]] = field(default_factory=dict)  # partitioned table -> leaf tables
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)  # table -> its columns
    types: dict[tuple[str, str], str] = field(default_factory=dict)  # (table, column) -> type name
    index_defs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # root index -> key definitions
    predicates: dict[str, str] = field(default_factory=dict)  # root index -> its WHERE ('' when none)
    pages: dict[str, float] = field(default_factory=dict)  # table or index -> pages (partitions summed)

    def root(self, name: str) -> str:
        return self.parent.get(name, name)

    def qualified(self, name: str) -> str:
        return f"{self.schema}.{name}"


@dataclass(frozen=True)
class Scan:
    node: str  # Seq Scan, Index Scan, Index Only Scan, Bitmap Index Scan, Bitmap Heap Scan...
    relation: str  # the partition or table scanned
    table: str  # its root table
    index: str | None  # root index name for index scans
    rows: float  # planner's estimate (per loop)
    cost: float
    condition: str  # Index Cond / Recheck Cond
    filter: str
    executed: bool  # False when ANALYZE shows it never ran (runtime pruning)
    searches: int | None = None  # PostgreSQL 18 "Index Searches" (ANALYZE)
    skip_scan: bool = False  # 18+: the leading column is free, the scan skips through its values
    full_index: bool = False  # before 18: the leading column is free, every entry is read
    fetched: float | None = None  # index entries read before the filter, where the plan tells
    size: float = 0.0  # rows of the relation scanned (a partition's own), from the catalog
    # under ANALYZE, over all loops: rows it returned, rows it read (returned + removed by
    # its filter), its time in ms, the shared buffers it touched (None: not executed)
    index_pages: float = 0.0  # pages of the index scanned (a partition's own), from the catalog
    returned: float | None = None
    read: float | None = None
    ms: float | None = None
    buffers: int | None = None
    limited: bool = False  # beneath a Limit node: the executor may stop it early


@dataclass(frozen=True)
class TriggerTime:
    """A trigger's time under EXPLAIN ANALYZE of a write (foreign keys' actions too)."""

    name: str
    relation: str
    constraint: str | None  # the foreign key an RI trigger enforces
    ms: float
    calls: int


@dataclass(frozen=True)
class Sort:
    keys: tuple[str, ...]
    input_rows: float
    presorted: bool  # an Incremental Sort: an index delivered the leading keys
    tables: frozenset[str]  # root tables read beneath it


@dataclass(frozen=True)
class PlanSummary:
    top: str  # the root node type ("Limit", "ModifyTable", ...)
    cost: float  # the root's total cost
    rows: float  # the root's row estimate
    scans: tuple[Scan, ...]
    sorts: tuple[Sort, ...]
    arbiters: tuple[str, ...] = ()  # ON CONFLICT arbiter indexes (root names)
    inserts: tuple[str, ...] = ()  # root tables an INSERT writes
    subplans_removed: int = 0  # partitions pruned at executor start
    actual_ms: float | None = None  # execution time under ANALYZE
    buffers: int | None = None  # shared blocks hit + read under ANALYZE
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    triggers: tuple[TriggerTime, ...] = ()  # under ANALYZE of a write
    # rows each write takes from its input, by root table ("": a write's read part, its rows)
    changed: dict[str, float] = field(default_factory=dict)

    @property
    def indexes(self) -> frozenset[str]:
        """Root indexes the plan reaches (scans and ON CONFLICT arbiters)."""
        return frozenset({s.index for s in self.scans if s.index} | set(self.arbiters))

    def main_node(self, table: str | None) -> str:
        """A short description of how `table` (else the first scan) is reached."""
        scans = [s for s in self.scans if table is None or s.table == table] or list(self.scans)
        if not scans:
            return self.top
        s = scans[0]
        how = f"{s.node} using {s.index}" if s.index else s.node
        if s.skip_scan:
            how += " (skip scan)"
        return f"{how} on {s.table}"


def summarize(document: dict[str, Any], catalog: Catalog, version: int) -> PlanSummary:
    root = document["Plan"]
    nodes = list(_walk(root))
    limited = {id(n) for limit in nodes if limit["Node Type"] == "Limit" for n in _walk(limit)}
    scans = tuple(
        _scan(n, catalog, version, limited=id(n) in limited)
        for n in nodes
        if "Relation Name" in n or n["Node Type"] in INDEX_NODES
    )
    sorts = tuple(_sort(n, catalog) for n in nodes if n["Node Type"] in ("Sort", "Incremental Sort"))
    arbiters = tuple(catalog.root(i) for n in nodes for i in n.get("Conflict Arbiter Indexes", ()))
    inserts = tuple(
        catalog.root(n["Relation Name"])
        for n in nodes
        if n["Node Type"] == "ModifyTable" and n.get("Operation") == "Insert"
    )
    return PlanSummary(
        top=root["Node Type"],
        cost=float(root["Total Cost"]),
        rows=float(root["Plan Rows"]),
        scans=tuple(s for s in scans if s.relation or s.index),
        sorts=sorts,
        arbiters=arbiters,
        inserts=inserts,
        subplans_removed=sum(int(n.get("Subplans Removed", 0)) for n in nodes),
        actual_ms=document.get("Execution Time"),
        buffers=_buffers(root),
        raw=document,
        triggers=tuple(
            TriggerTime(
                t.get("Trigger Name", ""),
                catalog.root(t.get("Relation", "")),
                t.get("Constraint Name"),
                float(t.get("Time", 0.0)),
                int(t.get("Calls", 0)),
            )
            for t in document.get("Triggers", ())
        ),
        changed=_changed(root, nodes, catalog),
    )


def _changed(root: dict[str, Any], nodes: list[dict[str, Any]], catalog: Catalog) -> dict[str, float]:
    """The rows each DELETE or UPDATE changes (each fires its foreign keys' actions): its
    input's rows, by table; a plan without a write (a write's read part): its own rows."""
    changed: dict[str, float] = {}
    for node in nodes:
        if node["Node Type"] != "ModifyTable":
            continue
        table = catalog.root(node.get("Relation Name", ""))
        for child in node.get("Plans", ()):
            if child.get("Parent Relationship") not in ("InitPlan", "SubPlan"):
                changed[table] = changed.get(table, 0.0) + _rows(child)
    return changed or {"": _rows(root)}


def _rows(node: dict[str, Any]) -> float:
    if "Actual Rows" in node:
        return float(node["Actual Rows"]) * float(node.get("Actual Loops", 1))
    return float(node.get("Plan Rows", 0.0))


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", ()):
        yield from _walk(child)


def _scan(node: dict[str, Any], catalog: Catalog, version: int, *, limited: bool) -> Scan:
    relation = node.get("Relation Name", "")
    index = catalog.root(node["Index Name"]) if "Index Name" in node else None
    table = catalog.root(relation) if relation else catalog.index_table.get(index or "", "")
    condition = node.get("Index Cond") or node.get("Recheck Cond") or ""
    searches = node.get("Index Searches")
    return Scan(
        node=node["Node Type"],
        relation=relation,
        table=table,
        index=index,
        rows=float(node.get("Plan Rows", 0)),
        cost=float(node.get("Total Cost", 0)),
        condition=condition,
        filter=node.get("Filter", ""),
        executed=node.get("Actual Loops", 1) != 0,
        searches=int(searches) if searches is not None else None,
        # under ANALYZE, one index search means it read one range after all (e.g. from the
        # start of a small partial index, stopping at the LIMIT): no skipping happened
        skip_scan=version >= 18 and _leading_free(node, index, catalog) and searches != 1,
        full_index=version < 18 and _leading_free(node, index, catalog),
        fetched=_fetched(node, catalog),
        size=catalog.rows.get(relation or table, 0.0),
        index_pages=catalog.pages.get(node.get("Index Name", ""), 0.0),
        limited=limited,
        **_actual(node),
    )


def _actual(node: dict[str, Any]) -> dict[str, Any]:
    """What ANALYZE measured on a scan node, over all its loops (EXPLAIN reports rows
    and time per loop)."""
    if "Actual Loops" not in node:
        return {}
    loops = float(node["Actual Loops"])
    returned = float(node.get("Actual Rows", 0.0)) * loops
    removed = float(node.get("Rows Removed by Filter", 0.0)) * loops
    removed += float(node.get("Rows Removed by Index Recheck", 0.0)) * loops
    blocks = node.get("Shared Hit Blocks")
    return {
        "returned": returned,
        "read": returned + removed,
        "ms": float(node.get("Actual Total Time", 0.0)) * loops,
        "buffers": int(blocks) + int(node.get("Shared Read Blocks", 0)) if blocks is not None else None,
    }


def _fetched(node: dict[str, Any], catalog: Catalog) -> float | None:
    """Rows an index hands over before filtering: a bitmap's B-tree index scans (their
    intersection is at most the smallest), or under ANALYZE rows returned plus rows
    removed by the filter. None when the plan can't tell (or a BRIN bitmap is lossy)."""
    if node["Node Type"] == "Bitmap Heap Scan":
        leaves = [n for n in _walk(node) if n["Node Type"] == "Bitmap Index Scan"]
        if not leaves or any(catalog.root(n.get("Index Name", "")) in catalog.lossy for n in leaves):
            return None
        rows = [float(n["Plan Rows"]) for n in leaves]
        anded = any(n["Node Type"] == "BitmapAnd" for n in _walk(node))
        return min(rows) if anded or len(rows) == 1 else sum(rows)
    if node["Node Type"] in ("Index Scan", "Index Only Scan") and "Rows Removed by Filter" in node:
        return float(node.get("Actual Rows", 0)) + float(node["Rows Removed by Filter"])
    return None


def _leading_free(node: dict[str, Any], index: str | None, catalog: Catalog) -> bool:
    """A B-tree scan whose condition leaves the index's leading column free: on 18 a skip
    scan, before 18 a walk over the whole index checking the condition on each entry."""
    if node["Node Type"] not in INDEX_NODES or index is None:
        return False
    columns = catalog.index_columns.get(index, ())
    condition = node.get("Index Cond", "")
    if not columns or not condition or columns[0].startswith("("):
        return False
    return re.search(rf"\b{re.escape(columns[0])}\b", condition) is None


def _sort(node: dict[str, Any], catalog: Catalog) -> Sort:
    tables = frozenset(catalog.root(n["Relation Name"]) for n in _walk(node) if "Relation Name" in n)
    child = node.get("Plans", [{}])[0]
    return Sort(
        keys=tuple(node.get("Sort Key", ())),
        input_rows=float(child.get("Plan Rows", node["Plan Rows"])),
        presorted=node["Node Type"] == "Incremental Sort",
        tables=tables,
    )


def _buffers(root: dict[str, Any]) -> int | None:
    if "Shared Hit Blocks" not in root:
        return None
    return int(root["Shared Hit Blocks"]) + int(root.get("Shared Read Blocks", 0))
