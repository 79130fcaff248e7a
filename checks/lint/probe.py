"""Statements that fail on existing rows, judged on the rows when a database is given.

A rule whose statement fails on some data (a UNIQUE index over duplicates, SET NOT
NULL over NULLs, a CHECK or FOREIGN KEY the rows violate, a type change the values do
not fit) yields a warning that says what to check, with a `DataCheck`: one read-only
`SELECT EXISTS (...)` that finds a violating row, built from the statement's own AST
(pglast deparses the expressions and quotes the names). With `lint --schema-from DSN`
the command line hands the engine a `DataProbe` (the database layer's read-only
connection, under the statement_timeout and lock_timeout of `ProbeTimeouts`, lint's
`data_check_timeout` setting); the engine then runs each check once and the
finding becomes an error when a violating row exists, disappears when none does, and
stays a warning saying why when the check could not be answered (a timeout, a table
changed earlier in the same migration). lint itself never imports a database driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from pglast import ast
from pglast.enums import AlterTableType
from pglast.stream import RawStream

from agentddl.checks.core.findings import Severity
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.earlier import earlier_commands
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context, Statement

_RESHAPING = frozenset(
    {AlterTableType.AT_AddColumn, AlterTableType.AT_DropColumn, AlterTableType.AT_AlterColumnType}
)
_ROW_WRITES = (ast.UpdateStmt, ast.DeleteStmt, ast.InsertStmt, ast.CopyStmt, ast.TruncateStmt)


class ProbeResult(Protocol):
    """One check's answer: whether a violating row exists (None: not answered)."""

    @property
    def found(self) -> bool | None: ...
    @property
    def seconds(self) -> float: ...
    @property
    def error(self) -> str | None: ...  # why not answered: "timed out after 5000 ms", the server's message


class DataProbe(Protocol):
    """Runs a `SELECT EXISTS (...)` read-only on the database the schema came from."""

    @property
    def source(self) -> str: ...  # host:port/dbname, never a password
    def exists(self, sql: str, statement_ms: int, lock_ms: int) -> ProbeResult: ...


@dataclass(frozen=True)
class ProbeTimeouts:
    """How long one data check may run, and wait for a lock, before it gives up (its
    finding then stays a warning saying it timed out)."""

    statement_ms: int = 5000
    lock_ms: int = 1000


@dataclass(frozen=True)
class DataCheck:
    """What a data-dependent statement needs of the rows, as one query."""

    sql: str  # SELECT EXISTS (...): true when a row would make the statement fail
    looks_for: str  # what it counts, for the message: "duplicate (email) values in public.users"
    blocked: str | None = None  # why the live rows cannot answer it (None: they can)
    tables: tuple[RelationName, ...] = ()  # the tables it reads
    # Without a database to ask, say nothing: another rule's finding on the statement
    # already says it may fail (a narrowing type change: column-type-change-rewrites).
    quiet_unprobed: bool = False


def quoted(table: RelationName) -> str:
    """`table` as SQL, each part quoted when it needs to be."""
    return RawStream()(ast.RangeVar(schemaname=table.schema, relname=table.name, inh=True))


def column_sql(name: str) -> str:
    return RawStream()(ast.ColumnRef(fields=(ast.String(sval=name),)))


def deparsed(node: ast.Node) -> str:
    return RawStream()(node)


def data_check(context: Context, tables: Sequence[RelationName], query: str, looks_for: str) -> DataCheck:
    """`SELECT EXISTS (query)`, blocked when the live rows do not show `tables` as the
    statement will find them: one is not in the schema read, or an earlier statement of
    this migration writes or alters it."""
    sql, read = f"SELECT EXISTS ({query})", tuple(tables)
    for table in tables:
        if context.is_new(table):
            return DataCheck(sql, looks_for, f"{table} is created earlier in this migration", read)
        if context.schema is None or context.schema.table(table) is None:
            return DataCheck(sql, looks_for, f"{table} is not in the schema read", read)
        if _changed_earlier(table, context):
            return DataCheck(sql, looks_for, f"an earlier statement of this migration changes {table}", read)
    return DataCheck(sql, looks_for, None, read)


def _changed_earlier(table: RelationName, context: Context) -> bool:
    """Rows written, or columns added, dropped, retyped or renamed earlier in the migration."""
    if rows_written_earlier(table, context) or _touched(table, context, (ast.RenameStmt,)):
        return True
    return any(command.subtype in _RESHAPING for _, command in earlier_commands(table, context))


def rows_written_earlier(table: RelationName, context: Context) -> bool:
    """An earlier statement of this migration inserts, updates, deletes or copies rows of `table`."""
    return _touched(table, context, _ROW_WRITES)


def _touched(table: RelationName, context: Context, kinds: tuple[type, ...]) -> bool:
    return any(table in _relations(earlier, context) for earlier in context.earlier_of(*kinds))


def _relations(statement: Statement, context: Context) -> set[RelationName]:
    node = statement.node
    relations = getattr(node, "relations", None) or [getattr(node, "relation", None)]
    return {relation_name(r, context) for r in relations if isinstance(r, ast.RangeVar)}


@dataclass
class RunProbe:
    """The probe of one lint run, which remembers the tables its earlier migrations write
    or reshape: their rows today are not the rows a later migration's statement will
    see (a backfill revision, then the one that sets NOT NULL)."""

    probe: DataProbe
    timeouts: ProbeTimeouts = ProbeTimeouts()
    changed: set[RelationName] = field(default_factory=set)

    @property
    def source(self) -> str:
        return self.probe.source

    def linted(self, steps: Sequence[tuple[Statement, Context]]) -> None:
        """Note what a migration just linted writes, for the migrations after it."""
        for statement, context in steps:
            if isinstance(statement.node, (*_ROW_WRITES, ast.AlterTableStmt, ast.RenameStmt)):
                self.changed |= _relations(statement, context)


@dataclass(frozen=True)
class Judged:
    """A data check's verdict on the live rows: the finding's new severity and words
    (severity None: no violating row, no finding)."""

    severity: Severity | None
    note: str


def judge(check: DataCheck, run: RunProbe) -> Judged:
    """Run the check once (unless blocked) and say what it found and how long it took."""
    probe = run.probe
    changed = sorted(set(check.tables) & run.changed)
    if check.blocked is None and changed:
        check = replace(check, blocked=f"an earlier migration of this run changes {changed[0]}")
    if check.blocked is not None:
        return Judged("warning", f"Not checked on {probe.source}: {check.blocked}.")
    answer = probe.exists(check.sql, run.timeouts.statement_ms, run.timeouts.lock_ms)
    took = f"{answer.seconds * 1000:.0f} ms"
    where = probe.source
    if answer.found is None:
        return Judged("warning", f"Checking {where} for {check.looks_for} did not finish: {answer.error}.")
    if answer.found:
        return Judged(
            "error", f"{where} has {check.looks_for}: this statement fails there (found in {took})."
        )
    return Judged(None, f"{where} has no {check.looks_for} (checked in {took}).")
