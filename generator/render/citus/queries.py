"""Named queries that differ in kind, not only in their tenant filter, when the tables are
distributed: partition maintenance calls Citus's time-partition functions (citus.sql)."""

from __future__ import annotations

from agentddl.generator.render.citus.sql import MAINTAIN
from agentddl.generator.render.queries.base import Ctx, Query


def citus_queries(c: Ctx) -> tuple[Query, ...]:
    return (maintain_partitions(c),)


def maintain_partitions(c: Ctx) -> Query:
    doc = (
        "Create the partitions ahead of now and drop those past retention with Citus's",
        "create_time_partitions and drop_old_time_partitions (citus.sql): each new partition",
        "is distributed with its parent. Run it on the coordinator, on a schedule, as a",
        "member of the owner role. Catalog work on every node: not a tenant's query.",
        "index: none (catalog work)",
        "returns: nothing",
    )
    return Query("maintain_partitions", "!", doc, f"CALL {c.t(MAINTAIN)}()", params=())
