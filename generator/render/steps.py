"""The ordered DDL steps of a schema: the one sequence both schema.sql and the Alembic
revision are rendered from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa

from agentddl.generator.model import Index as ModelIndex
from agentddl.generator.model import SchemaModel, SqlBlock
from agentddl.generator.model import Table as ModelTable
from agentddl.generator.render.sqla import metadata


@dataclass(frozen=True)
class Step:
    kind: Literal["sql", "table", "index"]
    why: str
    block: SqlBlock | None = None
    table: sa.Table | None = None
    index: sa.Index | None = None
    model_table: ModelTable | None = None
    model_index: ModelIndex | None = None


def steps(model: SchemaModel) -> tuple[Step, ...]:
    meta = metadata(model)
    result = [Step("sql", b.why, block=b) for b in model.before]
    for table in model.tables:
        sa_table = meta.tables[f"{model.schema}.{table.name}"]
        result.append(Step("table", table.comment, table=sa_table, model_table=table))
        by_name = {str(i.name): i for i in sa_table.indexes}
        result += [Step("index", i.why, index=by_name[i.name], model_index=i) for i in table.indexes]
    result += [Step("sql", b.why, block=b) for b in model.after]
    return tuple(result)
