"""The entity-relationship diagram as a mermaid `erDiagram`, from the model's keys.

Each table shows its key columns (PK, FK, UK); each foreign key becomes one
relationship, parent on the left. The FK's nullability gives the parent side's
cardinality; an FK inside the child's primary key is drawn as identifying (`--`).
"""

from __future__ import annotations

import re

from agentddl.generator.model import ForeignKey, SchemaModel, Table


def render_erd(model: SchemaModel) -> str:
    lines = ["erDiagram"]
    for table in model.tables:
        lines += _entity(table)
    for table in model.tables:
        lines += [_relationship(table, fk) for fk in table.foreign_keys]
    return "\n".join(lines)


def _entity(table: Table) -> list[str]:
    keys = _key_marks(table)
    rows = [
        f"        {_word(table.column(name).type)} {name} {', '.join(marks)}" for name, marks in keys.items()
    ]
    return [f"    {table.name} {{", *rows, "    }"]


def _key_marks(table: Table) -> dict[str, list[str]]:
    """Key columns in table order, each with its PK/FK/UK marks."""
    marks: dict[str, list[str]] = {}
    unique_columns = {c for u in table.uniques for c in u.columns}
    unique_columns |= {c for i in table.indexes if i.unique for c in i.key_columns}
    fk_columns = {c for fk in table.foreign_keys for c in fk.columns}
    for column in table.columns:
        found = [
            mark
            for mark, columns in (
                ("PK", set(table.primary_key)),
                ("FK", fk_columns),
                ("UK", unique_columns),
            )
            if column.name in columns
        ]
        if found:
            marks[column.name] = found
    return marks


def _relationship(table: Table, fk: ForeignKey) -> str:
    optional = any(table.column(c).nullable for c in fk.columns)
    parent_side = "|o" if optional else "||"
    line = "--" if set(fk.columns) <= set(table.primary_key) else ".."
    label = "(" + ", ".join(fk.columns) + ")"
    return f'    {fk.ref_table} {parent_side}{line}o{{ {table.name} : "{label}"'


def _word(sql_type: str) -> str:
    """Mermaid attribute types are single words: 'text[]' becomes 'text_array'."""
    return re.sub(r"\W", "_", sql_type.replace("[]", "_array"))
