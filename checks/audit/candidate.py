"""A suggested index: its candidate shapes, its DDL, and what judged it."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.checks.audit.shape import IndexShape, KeyPart
from agentddl.generator.model.blocks import quote


@dataclass(frozen=True)
class Suggestion:
    path: str
    table: str
    ddl: str
    reason: str
    verified: bool | None  # True: proven (see method); False: refuted; None: not checked
    cost_before: float | None = None
    cost_after: float | None = None
    node_after: str | None = None
    remaining: str | None = None  # used, but the plan still fails: the first finding
    method: str = ""  # what judged it: "hypopg", "clone", "hypopg + clone" ('' unchecked)
    ms_before: float | None = None  # measured in the clone, before and after the build
    ms_after: float | None = None


@dataclass(frozen=True)
class Candidate:
    shapes: tuple[IndexShape, ...]  # one index, or one per arm of an OR
    method: str  # btree | gin


def create_statement(schema: str, table: str, candidate: Candidate, partitioned: bool) -> str:
    # a partitioned parent takes a plain CREATE INDEX (each partition can be built
    # CONCURRENTLY first and attached)
    create = "CREATE INDEX " if partitioned else "CREATE INDEX CONCURRENTLY "
    return "; ".join(
        create + index_body(schema, table, shape, candidate.method) for shape in candidate.shapes
    )


def index_body(schema: str, table: str, shape: IndexShape, method: str = "btree") -> str:
    """`ON schema.table [USING gin] (key) [WHERE partial]`: the body of CREATE INDEX."""
    columns = ", ".join(key_sql(part) for part in shape.parts)
    using = f"USING {method} " if method != "btree" else ""
    where = f" WHERE {' AND '.join(shape.partial)}" if shape.partial else ""
    return f"ON {quote(schema)}.{quote(table)} {using}({columns}){where}"


def key_sql(part: KeyPart) -> str:
    target = part.target if part.target.startswith("(") else quote(part.target)
    return f"{target} {part.suffix}".rstrip()
