"""SchemaModel -> SQLAlchemy Core metadata, the one source for both schema.sql and the
Alembic revision (so the two can't drift apart)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from agentddl.generator.model import Column, Index, SchemaModel, Table

_TYPES: dict[str, Any] = {
    "uuid": pg.UUID(as_uuid=True),
    "bigint": sa.BigInteger(),
    "integer": sa.Integer(),
    "smallint": sa.SmallInteger(),
    "text": sa.Text(),
    "timestamptz": pg.TIMESTAMP(timezone=True),
    "jsonb": pg.JSONB(),
    "bytea": pg.BYTEA(),
    "boolean": sa.Boolean(),
    "text[]": pg.ARRAY(sa.Text()),
}


def metadata(model: SchemaModel) -> sa.MetaData:
    meta = sa.MetaData(schema=model.schema)
    for table in model.tables:
        _table(meta, model.schema, table)
    return meta


def _table(meta: sa.MetaData, schema: str, table: Table) -> sa.Table:
    lone_key = table.primary_key[0] if len(table.primary_key) == 1 else None
    elements: list[Any] = [_column(c, c.name == lone_key) for c in table.columns]
    elements.append(sa.PrimaryKeyConstraint(*table.primary_key, name=table.pk_name))
    elements += [sa.CheckConstraint(c.expression, name=c.name) for c in table.checks]
    elements += [
        sa.ForeignKeyConstraint(
            list(fk.columns),
            [f"{schema}.{fk.ref_table}.{col}" for col in fk.ref_columns],
            name=fk.name,
            ondelete=None if fk.on_delete == "NO ACTION" else fk.on_delete,
        )
        for fk in table.foreign_keys
    ]
    elements += [sa.UniqueConstraint(*u.columns, name=u.name) for u in table.uniques]
    kwargs: dict[str, Any] = {"comment": table.comment}
    if table.partitioning:
        kwargs["postgresql_partition_by"] = f"RANGE ({table.partitioning.column})"
    result = sa.Table(table.name, meta, *elements, **kwargs)
    for index in table.indexes:
        build_index(result, index)
    return result


def _column(column: Column, lone_key: bool = False) -> sa.Column[Any]:
    # SQLAlchemy renders a lone integer primary key as (big)serial: a sequence the model
    # never declared (a bigint tenant key became bigserial).
    serial_prone = lone_key and not column.identity and column.type in ("smallint", "integer", "bigint")
    extra: dict[str, Any] = {"autoincrement": False} if serial_prone else {}
    return sa.Column(
        column.name,
        _TYPES[column.type],
        *([sa.Identity(always=True)] if column.identity else []),
        **extra,
        nullable=column.nullable,
        server_default=sa.text(column.default) if column.default else None,
        comment=column.comment or None,
    )


def build_index(table: sa.Table, index: Index) -> sa.Index:
    expressions: list[Any] = []
    for part in index.columns:
        if part.startswith("("):
            expressions.append(sa.text(part))
        elif part.endswith(" DESC"):
            expressions.append(table.c[part.removesuffix(" DESC")].desc())
        else:
            expressions.append(table.c[part])
    kwargs: dict[str, Any] = {"unique": index.unique}
    if index.where:
        kwargs["postgresql_where"] = sa.text(index.where)
    if index.method != "btree":
        kwargs["postgresql_using"] = index.method
    if index.nulls_not_distinct:
        kwargs["postgresql_nulls_not_distinct"] = True
    return sa.Index(index.name, *expressions, _table=table, **kwargs)
