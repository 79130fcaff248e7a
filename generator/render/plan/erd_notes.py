"""PLAN.md section 1: the ER diagram and the notes a reviewer of the DDL needs."""

from __future__ import annotations

import re

from agentddl.generator.model import Check, ForeignKey, SchemaModel, Table, features
from agentddl.generator.model.names import quote
from agentddl.generator.profile.units import format_size
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md
from agentddl.generator.render.plan.erd import render_erd
from agentddl.generator.render.plan.model_parts import model_parts_note

TITLE = "## 1. Entity-relationship diagram and DDL notes"


def ddl_notes(model: SchemaModel) -> str:
    parts = [
        TITLE,
        "```mermaid\n" + render_erd(model) + "\n```",
        "The full DDL is `schema.sql` (each object commented with the invariant or access "
        "path behind it); the Alembic revision creates the same objects.",
        "### Keys and tenancy\n\n" + tenancy_note(model),
        "### Partitioned history\n\n" + partitioning_note(model),
        "### Append-only events\n\n" + append_only_note(model),
        "### Payloads\n\n" + payload_note(model),
        "### The runtime model's parts (`model:`)\n\n" + model_parts_note(model),
        "### Version-gated features (PostgreSQL "
        f"{model.profile.engine.version})\n\n" + md.bullets(model.features),
    ]
    return "\n\n".join(parts)


def _fk_line(table: Table, fk: ForeignKey) -> str:
    return (
        f"`{table.name}` ({', '.join(fk.columns)}) -> `{fk.ref_table}` "
        f"({', '.join(fk.ref_columns)}) ON DELETE {fk.on_delete}: {fk.why}"
    )


def tenancy_note(model: SchemaModel) -> str:
    p, tenant = model.profile, model.tenant
    fks = md.bullets(_fk_line(t, fk) for t in model.tables for fk in t.foreign_keys)
    if not tenant:
        return (
            "Single-tenant profile (`tenancy.column: null`): keys carry no tenant column.\n\n"
            + fks
            + "\n\n"
            + time_ordered_keys_note(model)
        )
    owned = [t for t in model.tables if t.tenant_owned]
    lead = (
        f"Every tenant-owned table ({md.codes(t.name for t in owned)}) has a primary key "
        f"that starts with `{tenant}`, and every foreign key carries `{tenant}`, so a "
        "row can never point at another tenant's parent (and the keys are ready for "
        "distribution by tenant):"
    )
    rls = (
        f"Row-level security is on, and FORCEd: the app role sees only rows whose `{tenant}` "
        "equals the setting `agentddl.tenant`, which `set_tenant` sets for the transaction "
        "(`set_config(..., true)`), never the session: behind a transaction-mode pooler "
        "(PgBouncer) the server connection serves another client's next transaction, "
        "which then names its own tenant or sees nothing. The tables' owner "
        f"(`{p.role('owner')}`) is held to the policies too: naming a tenant, it sees that "
        "tenant's rows only; without one (retention, maintenance) it sees every tenant."
        if model.row_level_security
        else "Row-level security is off (`tenancy.row_level_security: false`)."
    )
    return f"{lead}\n\n{fks}\n\n{rls}\n\n{time_ordered_keys_note(model)}"


def time_ordered_keys_note(model: SchemaModel) -> str:
    """Why generated ids are version 7, with the measurement that justified it."""
    q = quote(model.schema)
    source = (
        "`uuidv7()`"
        if features.has(model.profile.engine.version, "uuidv7")
        else f"`{q}.uuid_v7()` (a SQL function: 48 bits of milliseconds over `gen_random_uuid()`)"
    )
    return (
        f"Generated ids (`run_id`, `message_id`) are time-ordered version 7 uuids from {source}; "
        f"`{q}.uuid_v7()` exists on every version, for a runtime that makes its ids before the "
        "insert (send version 7 ids if you do: random ones bring the cost back). A random id puts "
        "each insert, and each non-HOT update, on a random leaf of the key's B-tree, and the first "
        "touch of a leaf after a checkpoint writes an 8 kB full-page image; new v7 ids share the "
        "rightmost leaves. Measured on PostgreSQL 15 at 1,000,000 rows of history "
        "(`python tests/benchmarks/bench_evidence.py --pg-version 15 --history 1000000 "
        "--clients 8 --duration 5`): `runs_pkey`, `runs_identity_key` and `attempts_pkey` wrote "
        "6,212 WAL bytes and 0.99 full-page images per claim + complete with random ids, 938 "
        "bytes and 0.06 with v7 ones. The ids reveal their creation time to whoever sees them."
    )


def partitioning_note(model: SchemaModel) -> str:
    tables = fig.partitioned(model)
    if not tables:
        return "No table is partitioned in this profile."
    return (
        "\n".join(_partition_line(model, t) for t in tables)
        + "\n\n"
        + (
            "Partitioning by the run's creation time, not the row's, keeps all of a run's "
            "history in one partition, so retention drops whole runs' history at once and a "
            "run's reads touch one partition."
        )
    )


def _partition_line(model: SchemaModel, table: Table) -> str:
    part = fig.partitioning(table)
    fk = next(f for f in table.foreign_keys if part.column in f.columns)
    target = fk.ref_columns[fk.columns.index(part.column)]
    pinned = next(
        (i.name for i in model.table(fk.ref_table).indexes if i.unique and i.key_columns == fk.ref_columns),
        f"{fk.ref_table}_pkey",
    )
    return (
        f"- `{table.name}` is partitioned by RANGE (`{part.column}`), "
        f"{part.period.adverb}. Its primary key ({', '.join(table.primary_key)}) "
        f"contains the partition key, so PostgreSQL enforces it as a real unique "
        f"constraint across all partitions; `{fk.name}` pins `{part.column}` to "
        f"`{fk.ref_table}.{target}` through the unique index `{pinned}`, so the key cannot "
        "be faked and (run, seq) stays unique."
    )


def append_only_note(model: SchemaModel) -> str:
    tables = [t for t in model.tables if t.append_only]
    if not tables:
        return "No table is append-only in this profile."
    return "\n".join(_append_only_line(model, t) for t in tables)


def _append_only_line(model: SchemaModel, table: Table) -> str:
    trigger = next((b for b in model.after if b.name == f"{table.name}_append_only"), None)
    grants = _app_grants(model, table.name)
    parts = [f"- `{table.name}`: {table.comment}"]
    if trigger:
        parts.append(f"The trigger `{trigger.name}` refuses UPDATE for every role ({trigger.why}).")
    if grants:
        parts.append(f"The app role `{model.profile.role('app')}` holds only {grants} on it.")
    parts.append("Old history leaves by dropping partitions (section 4), never by DELETE.")
    return " ".join(parts)


def _app_grants(model: SchemaModel, table: str) -> str:
    """The app role's privileges on a table, read from the model's grants block."""
    block = next((b for b in model.after if b.name == "grants"), None)
    if block is None:
        return ""
    pattern = rf"GRANT ([A-Z, ]+) ON {re.escape(fig.qualified(model, table))} TO "
    pattern += re.escape(model.profile.role("app"))
    match = re.search(pattern + r"\b", block.sql)
    return match.group(1) if match else ""


def payload_note(model: SchemaModel) -> str:
    p = model.profile.payload
    lines = [
        f"- `{t.name}`: " + "; ".join(f"`{c.name}` {c.why}" for c in _payload_checks(t))
        for t in model.tables
        if _payload_checks(t)
    ]
    lead = (
        f"Checkpoints up to {format_size(p.inline_limit)} are stored inline; larger ones "
        "are written to object storage first and the row keeps `payload_ref`, its size and "
        "sha256; an inline payload's size and sha256 are computed by `save_checkpoint` from one "
        "parse and one serialization of it (three parses and two serializations before: "
        "0.68-0.81 ms of statement time per 16 kB save, 0.59-0.61 ms after, PostgreSQL 15 at "
        "1,000,000 rows, measured with the command in Keys and tenancy). "
        f"Event payloads are capped at {format_size(p.event_limit)} and outbox "
        f"messages at {format_size(p.outbox_limit)}: no secrets, full prompts or raw "
        "provider responses in history. Enforced by:"
    )
    return lead + "\n\n" + "\n".join(lines)


def _payload_checks(table: Table) -> list[Check]:
    return [c for c in table.checks if "payload" in c.name or "inline" in c.name]
