"""Severity by table size: a hazard that grows with the table is milder on a small one.

Building an index, validating a constraint or rewriting a table holds its lock for as
long as the table takes to read: milliseconds at 1,000 rows, minutes at 100 million.
With `--schema-from` the linter knows each table's size (rows and heap bytes), and a
rule that sets `scales_with_table_size` reports its finding at

- info     below `info_below_rows` rows and `info_below_bytes` bytes,
- warning  below `warning_below_rows` rows and `warning_below_bytes` bytes,
- its own severity (usually error) above either,

never harsher than the rule's own severity. Without sizes (no `--schema-from`, a table
the schema does not show, a schema.sql without statistics) nothing changes. The table
judged is the one the statement works on (its partitions' total for a partitioned
table). The thresholds are `[tool.agentddl] table_size = {...}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pglast import ast

from agentddl.checks.core.findings import SEVERITIES, Severity
from agentddl.checks.pg.ast_helpers import qualified_name, relation_name
from agentddl.checks.pg.locks import strongest_lock
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.schema import SchemaFacts
from agentddl.checks.pg.statements import Context, Statement

SIZE_KEYS = ("info_below_rows", "warning_below_rows", "info_below_bytes", "warning_below_bytes")


@dataclass(frozen=True)
class SizeThresholds:
    """Where a table stops being small (info) and medium (warning)."""

    info_below_rows: int = 10_000
    warning_below_rows: int = 1_000_000
    info_below_bytes: int = 8 << 20  # 8 MiB
    warning_below_bytes: int = 1 << 30  # 1 GiB


@dataclass(frozen=True)
class TableSize:
    table: RelationName
    rows: int | None
    bytes: int | None

    def note(self) -> str:
        parts = [f"about {self.rows:,} rows" if self.rows is not None else "", _bytes(self.bytes)]
        return f"{self.table} holds {', '.join(p for p in parts if p)}"


def scaled(severity: Severity, size: TableSize, limits: SizeThresholds) -> Severity:
    """`severity`, or a milder one for a small or medium table."""
    if _below(size, limits.info_below_rows, limits.info_below_bytes):
        return _milder(severity, "info")
    if _below(size, limits.warning_below_rows, limits.warning_below_bytes):
        return _milder(severity, "warning")
    return severity


def table_size(statement: Statement, context: Context) -> TableSize | None:
    """The size of the table `statement` works on, when the schema knows it."""
    facts = context.schema
    if facts is None:
        return None
    table = _worked_on(statement, context, facts)
    if table is None:
        return None
    rows, size = _rows_and_bytes(facts, table)
    return TableSize(table, rows, size) if rows is not None or size is not None else None


def _worked_on(statement: Statement, context: Context, facts: SchemaFacts) -> RelationName | None:
    node = statement.node
    relation = getattr(node, "relation", None)
    if isinstance(node, ast.VacuumStmt) and node.rels:
        relation = node.rels[0].relation
    name: RelationName | None
    if isinstance(relation, ast.RangeVar):
        name = relation_name(relation, context)
    elif isinstance(node, ast.DropStmt) and node.objects:
        name = qualified_name(node.objects[0], context)
    else:
        lock = strongest_lock(statement, context)
        name = lock[0] if lock is not None else None
    index = facts.index(name) if name is not None else None
    return index.table if index is not None else name


def _rows_and_bytes(facts: SchemaFacts, name: RelationName) -> tuple[int | None, int | None]:
    """The table's own size, else (a partitioned table) the sum of its partitions'."""
    table = facts.table(name)
    if table is None:
        return None, None
    if table.rows is not None or table.bytes is not None or not table.partitioned:
        return table.rows, table.bytes
    children = [child.name for child in facts.tables.values() if child.partition_of == name]
    parts = [_rows_and_bytes(facts, child) for child in children]
    rows = [r for r, _ in parts if r is not None]
    sizes = [b for _, b in parts if b is not None]
    return (sum(rows) if rows else None), (sum(sizes) if sizes else None)


def _below(size: TableSize, rows: int, size_bytes: int) -> bool:
    return (size.rows is None or size.rows < rows) and (size.bytes is None or size.bytes < size_bytes)


def _milder(severity: Severity, cap: Severity) -> Severity:
    return max(severity, cap, key=SEVERITIES.index)


def _bytes(value: int | None) -> str:
    if value is None:
        return ""
    for unit, shift in (("GB", 30), ("MB", 20), ("kB", 10)):
        if value >= 1 << shift:
            return f"{value / (1 << shift):.0f} {unit}"
    return f"{value} bytes"
