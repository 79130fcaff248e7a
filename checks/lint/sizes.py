"""Severity by table size: a hazard that grows with the table is milder on a small one.

Building an index, validating a constraint or rewriting a table holds its lock for as
long as the table takes to read: milliseconds at 1,000 rows, minutes at 100 million.
With production's sizes (rows and heap bytes of each table, `TableSizes` below), a
rule that sets `scales_with_table_size` reports its finding at

- info     below `info_below_rows` rows and `info_below_bytes` bytes,
- warning  below `warning_below_rows` rows and `warning_below_bytes` bytes,
- its own severity (usually error) above either,

never harsher than the rule's own severity. Without sizes (no `--sizes-from`, a table
the sizes do not name) nothing changes. The table judged is the one the statement works
on (its partitions' total for a partitioned table). The thresholds are
`[tool.agentddl] table_size = {...}`.

Sizes come only from where they are production's (`TableSizes`): `--sizes-from` (a
database's pg_class statistics, read by the CLI through the database layer; a dump with
statistics; a profile's volume estimate) or `[tool.agentddl] table_rows`, never from the
`--schema-from` source: a staging database with a few thousand rows a table would make
every index build on it look harmless (`with_sizes` drops a schema's own sizes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pglast import ast

from agentddl.checks.core.findings import SEVERITIES, Severity
from agentddl.checks.pg.ast_helpers import qualified_name, relation_name
from agentddl.checks.pg.locks import strongest_lock
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.schema import SchemaFacts, TableFacts
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


@dataclass(frozen=True)
class TableSizes:
    """Production's table sizes, and where they came from (said in the report)."""

    source: str  # "db.example.com:5432/app", "config (agentddl.toml)", "stats.sql"
    tables: Mapping[RelationName, tuple[int | None, int | None]]  # rows, heap bytes


def sizes_by_name(source: str, rows: Mapping[tuple[str, str], tuple[int | None, int | None]]) -> TableSizes:
    """Sizes read from a database as plain data ((schema, table) -> (rows, bytes), e.g.
    db.schema_read.table_sizes), for `--sizes-from DB`."""
    return TableSizes(source, {RelationName(schema, name): size for (schema, name), size in rows.items()})


def sizes_of(facts: SchemaFacts) -> TableSizes:
    """The sizes a schema source states (a dump's statistics, a profile's estimates),
    for `--sizes-from FILE`; a partitioned table's are its partitions' total."""
    tables = {name: _rows_and_bytes(facts, name) for name in facts.tables}
    return TableSizes(facts.source, {name: size for name, size in tables.items() if size != (None, None)})


def with_sizes(schema: SchemaFacts | None, sizes: TableSizes | None) -> SchemaFacts | None:
    """The facts rules read: `schema` with its own sizes replaced by `sizes` (none
    without). A table `sizes` names and the schema does not is added with its size
    alone (its columns stay unknown)."""
    if schema is None and sizes is None:
        return None
    base = schema if schema is not None else SchemaFacts(sizes.source if sizes else "")
    known = sizes.tables if sizes is not None else {}
    tables = {name: _resized(table, known.get(name)) for name, table in base.tables.items()}
    for name, (rows, size) in known.items():
        tables.setdefault(name, TableFacts(name, rows=rows, bytes=size))
    return replace(base, tables=tables)


def _resized(table: TableFacts, size: tuple[int | None, int | None] | None) -> TableFacts:
    rows, heap = size if size is not None else (None, None)
    return table if (table.rows, table.bytes) == (rows, heap) else replace(table, rows=rows, bytes=heap)


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
