"""`agentddl trace --format json` as a typed model: docs/schemas/trace.schema.json is
generated from it (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.core.report.schema import Closed, Envelope


class TracedLock(Closed):
    """A relation lock the migrating session held, and the runtime queries it blocks."""

    relation: str = Field(description="Schema-qualified relation.")
    mode: str = Field(description="As pg_locks names it: AccessExclusiveLock, ShareLock, ...")
    blocks: list[str] = Field(description="Runtime query kinds it conflicts with: reads, writes, claims.")


class WaitedLock(Closed):
    """A lock the statement queued for."""

    relation: str
    mode: str


class TracedStatement(Closed):
    """What one statement did on the scratch database."""

    file: str
    line: int = Field(ge=1)
    sql: str
    in_transaction: bool = Field(description="Inside the migration's own BEGIN..COMMIT (or the runner's).")
    locks: list[TracedLock]
    waited_for: list[WaitedLock]
    rewritten: list[str] = Field(description="Relations rewritten (a new file: every row copied).")
    emptied: list[str] = Field(description="Rewritten tables left with no rows (TRUNCATE).")
    scanned: list[str]
    written: dict[str, int] = Field(description="Rows updated or deleted, per table.")
    duration_ms: float
    strongest_lock: str | None = Field(description="The strongest lock it newly took on a user relation.")
    lock_held_ms: float = Field(description="From its start until its transaction ended (0: no lock).")
    lock_timeout_ms: int
    statement_timeout_ms: int
    blocked_ms: float | SkipJsonSchema[None] = Field(
        None, description="With --load: the longest wait of the workload it caused."
    )
    error: str | SkipJsonSchema[None] = Field(None, description="SQLSTATE and message, when it failed.")
    left_invalid: list[str] | SkipJsonSchema[None] = Field(
        None, description="The invalid indexes its failure left behind, when any."
    )


class TraceLoad(Closed):
    """With --load: the workload's queries per second around the migration."""

    before_qps: float
    during_qps: float
    after_qps: float
    queries: int = Field(ge=0)
    connections: int = Field(ge=0)
    errors: int = Field(ge=0)


class TraceOutput(Envelope):
    """`agentddl trace --format json`: what PostgreSQL did per statement of the migration."""

    server_version: int = Field(description="PostgreSQL major of the scratch server.")
    statements: list[TracedStatement]
    load: TraceLoad | SkipJsonSchema[None] = None
