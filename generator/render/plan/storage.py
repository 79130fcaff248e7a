"""PLAN.md section 3: every index, partitioned table, storage setting and compressed
column of the model, each with the reason it exists."""

from __future__ import annotations

import re

from agentddl.generator.model import Index, SchemaModel, Table
from agentddl.generator.profile.units import format_duration
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md

TITLE = "## 3. Indexes, partitions and compression"


def storage_section(model: SchemaModel) -> str:
    return "\n\n".join(
        [
            TITLE,
            "### Indexes\n\nEvery index serves a declared access path (the named query in "
            "`queries.sql`) or a constraint; primary keys are listed with the paths that "
            "use them.",
            index_table(model),
            "### Partitioned tables",
            partition_table(model),
            "### Storage parameters of hot-updated tables",
            reloption_table(model),
            "### Compression",
            compression_table(model),
        ]
    )


def index_table(model: SchemaModel) -> str:
    rows = []
    for table in model.tables:
        rows.append(_pk_row(model, table))
        rows += [_unique_row(table.name, u.name, u.columns, u.why) for u in table.uniques]
        rows += [_index_row(model, i) for i in table.indexes]
    header = ["table", "index", "columns", "partial predicate", "method", "serves", "rationale"]
    return md.table(header, rows)


def _users(model: SchemaModel, index_name: str) -> list[str]:
    return [p.name for p in model.access_paths if p.index == index_name]


def _pk_row(model: SchemaModel, table: Table) -> list[str]:
    serves = _users(model, table.pk_name) or ["identity"]
    why = "primary key: identity" + (", tenant-scoped" if model.tenant else "")
    if table.partitioning:
        why += "; contains the partition key, so it is unique across partitions"
    return [
        table.name,
        f"`{table.pk_name}` (PK)",
        md.codes(table.primary_key),
        "-",
        "btree",
        md.codes(serves),
        why,
    ]


def _unique_row(table: str, name: str, columns: tuple[str, ...], why: str) -> list[str]:
    return [table, f"`{name}` (unique)", md.codes(columns), "-", "btree", "-", why]


def _index_row(model: SchemaModel, index: Index) -> list[str]:
    serves = list(index.serves) + [p for p in _users(model, index.name) if p not in index.serves]
    kind = " (unique)" if index.unique else ""
    if index.nulls_not_distinct:
        kind = " (unique, NULLS NOT DISTINCT)"
    return [
        index.table,
        f"`{index.name}`{kind}",
        md.codes(index.columns),
        md.code(index.where) if index.where else "-",
        index.method,
        ", ".join(serves),
        index.why,
    ]


def partition_table(model: SchemaModel) -> str:
    tables = fig.partitioned(model)
    if not tables:
        return "No table is partitioned in this profile."
    rows = []
    for table in tables:
        part = fig.partitioning(table)
        rows.append(
            [
                table.name,
                md.code(part.column),
                part.period.adverb,
                format_duration(part.retention_seconds),
                f"{part.runway} ({md.duration(fig.runway_seconds(part))} ahead)",
                f"~{fig.partitions_kept(part)}",
                part.why,
            ]
        )
    header = ["table", "key", "granularity", "retention", "runway", "partitions", "why"]
    return md.table(header, rows)


def reloption_table(model: SchemaModel) -> str:
    steps = model.profile.volume.steps_per_second
    rows = [
        [t.name, md.codes(f"{k}={v}" for k, v in t.storage), _storage_reason(t, steps)]
        for t in model.tables
        if t.storage
    ]
    if not rows:
        return "No table needs non-default storage parameters."
    return md.table(["table", "reloptions", "why"], rows)


def _storage_reason(table: Table, steps_per_second: int) -> str:
    options = dict(table.storage)
    parts = [f"updated in place on the step path at up to {md.number(steps_per_second)} steps/s"]
    if "fillfactor" in options:
        free = 100 - int(options["fillfactor"])
        parts.append(f"fillfactor leaves {free}% of each page free for same-page (HOT) updates")
    by_count = float(options.get("autovacuum_vacuum_scale_factor", 1)) == 0
    if by_count and "autovacuum_vacuum_threshold" in options:
        parts.append(
            f"autovacuum starts after {options['autovacuum_vacuum_threshold']} dead rows whatever the "
            "table's size (a share of a small, churning table would be a handful of rows), and "
            "runs without cost pauses, so the live set stays as small as the work in flight"
        )
    elif "autovacuum_vacuum_scale_factor" in options:
        share = float(options["autovacuum_vacuum_scale_factor"]) * 100
        parts.append(f"autovacuum starts once {share:g}% of rows are dead (default 20%)")
    if "autovacuum_vacuum_cost_limit" in options:
        parts.append(
            f"and may do {options['autovacuum_vacuum_cost_limit']} cost units per round (default 200)"
        )
    return "; ".join(parts)


def compression_table(model: SchemaModel) -> str:
    method = model.profile.payload.compression
    rows = [
        [f"{t.name}.{c.name}", c.type, c.compression or "default (pglz)", _bound(t, c.name)]
        for t in model.tables
        for c in t.columns
        if c.compression or (method == "none" and c.type == "jsonb")
    ]
    lead = (
        f"Profile: `payload.compression: {method}`; checkpoints above the inline limit "
        f"({md.size(model.profile.payload.inline_limit)}) are stored out of line "
        "(`payload_ref`) and never reach TOAST."
    )
    return lead + "\n\n" + md.table(["column", "type", "compression", "bounded by"], rows)


def _bound(table: Table, column: str) -> str:
    """The size checks that bound a column, read from the table's CHECK constraints."""
    word = re.compile(rf"\b{re.escape(column)}\b")
    checks = [
        c
        for c in table.checks
        if word.search(c.expression) and ("octet_length" in c.expression or "_bytes" in c.expression)
    ]
    return "; ".join(f"{md.code(c.expression)} ({c.name})" for c in checks) or "-"
