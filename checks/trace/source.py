"""Migrations -> the statements `trace` runs, in order, with their transaction structure.

Read through the PostgreSQL-semantics layer (agentddl.checks.pg), as lint reads them:
SQL files are split by its walker (psql scripts, goose/dbmate up sections, BEGIN/COMMIT
blocks). Alembic revisions are run by Alembic itself (`online`: each statement known as
it runs, `online_statement`), or rendered by its offline mode (what `alembic upgrade
--sql` prints, with each statement mapped back to its `op.*` line).
Statements inside DO blocks run as part of the DO; Alembic's own alembic_version
bookkeeping is left out, in revisions and in `alembic upgrade --sql` output alike (the
scratch database has no version table, and a one-row write locks nothing that matters).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pglast
from pglast import ast, enums

from agentddl.checks.alembic import offline as alembic_offline
from agentddl.checks.alembic import traced as alembic_traced
from agentddl.checks.pg import psql_script
from agentddl.checks.pg.batching import BOOKKEEPING_TABLES
from agentddl.checks.pg.transactions import no_transaction_block
from agentddl.checks.pg.walk import walk
from agentddl.generator.errors import AgentDDLError

Control = Literal["begin", "commit", "rollback"]


@dataclass(frozen=True)
class PlannedStatement:
    """One statement to run, where it came from, and how it runs."""

    file: str
    line: int
    sql: str
    node: Any  # the pglast statement node
    in_block: bool  # inside BEGIN..COMMIT or the runner's implicit transaction
    control: Control | None  # BEGIN / COMMIT / ROLLBACK, else None
    needs_autocommit: bool  # PostgreSQL refuses it inside a transaction block (CONCURRENTLY, ...)
    copy_data: str | None = None  # COPY ... FROM STDIN: the data lines psql sends after it
    column: int = 1

    def where(self, position: int | None = None) -> str:
        """file:line:column of the statement, or of a 1-based character position in its
        SQL (PostgreSQL's error position); Alembic revisions: the op.* line."""
        if not position or self.column == 0:
            return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")
        before = self.sql[: position - 1]
        newlines = before.count("\n")
        column = len(before) - before.rfind("\n") if newlines else self.column + len(before)
        return f"{self.file}:{self.line + newlines}:{column}"

    @property
    def copies_to_client(self) -> bool:
        """COPY ... TO STDOUT: psql prints what it gets; the tracer reads it and drops it."""
        node = self.node
        return isinstance(node, ast.CopyStmt) and not node.is_from and _to_client(node)


@dataclass(frozen=True)
class MigrationFile:
    """The statements of one migration file; each file runs in a session of its own."""

    path: Path
    statements: list[PlannedStatement]
    text: str = ""  # the file as read (a revision: its Python source), to show a finding's line
    online: bool = False  # a revision run with Alembic: its statements are known as they run


def load_migrations(paths: list[Path], pg_version: int, online: bool = False) -> list[MigrationFile]:
    """Every named file (folders: their .sql files by name, revisions by chain), in order.
    online: Alembic revisions are run by Alembic (checked importable here), else read as
    `alembic upgrade --sql` prints them."""
    files: list[MigrationFile] = []
    for path in expand(paths):
        if path.suffix != ".py":
            files.append(_sql_file(path, pg_version))
        elif online:
            files.append(MigrationFile(path, [], _read_revision(path), online=True))
        else:
            files.append(_revision(path, pg_version))
    revisions = [f.path for f in files if f.online]
    if revisions:
        try:
            alembic_traced.check_loadable(revisions)
        except alembic_traced.RevisionFailed as error:
            raise AgentDDLError(f"{error.source}: Alembic cannot load this revision: {error}") from None
    return files


def online_statement(
    source: alembic_traced.Source, sql: str, in_block: bool, pg_version: int
) -> PlannedStatement:
    """A statement an Alembic revision issued while it ran: `in_block` when the connection
    is in a transaction (not an autocommit_block()). SQL that pglast cannot parse (one
    statement or several, as op.execute sent it) runs as it is, in the transaction."""
    try:
        nodes = [raw.stmt for raw in pglast.parse_sql(sql)]
    except pglast.parser.ParseError:
        nodes = []
    return PlannedStatement(
        file=str(source.path),
        line=source.line,
        sql=sql.strip(),
        node=nodes[0] if len(nodes) == 1 else None,
        in_block=in_block,
        control=_control(nodes[0]) if len(nodes) == 1 else None,
        needs_autocommit=any(_needs_autocommit(node, pg_version) for node in nodes),
        column=0,
    )


def expand(paths: list[Path]) -> list[Path]:
    """Files as given; a folder becomes its .sql files sorted by name, then its Alembic
    revisions in down_revision order."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise AgentDDLError(f"{path}: no such file or directory")
        if path.is_file():
            found.append(path)
            continue
        found.extend(sorted(path.glob("*.sql")))
        found.extend(revision_chain(alembic_offline.revision_files([path])))
    if paths and not found:
        raise AgentDDLError(f"no migrations found in {', '.join(map(str, paths))}")
    return found


def revision_chain(revisions: list[Path]) -> list[Path]:
    """Alembic revision files ordered so that each comes after its down_revision."""
    identity = {p: alembic_offline.revision_identity(p) for p in revisions}
    by_down: dict[str | None, list[Path]] = {}
    for path, ident in identity.items():
        if ident is not None:
            by_down.setdefault(ident[1], []).append(path)
    known = {ident[0] for ident in identity.values() if ident is not None}
    ordered: list[Path] = []
    queue = [p for down, ps in sorted(by_down.items(), key=str) if down not in known for p in ps]
    while queue:
        path = queue.pop(0)
        ordered.append(path)
        ident = identity[path]
        queue.extend(by_down.get(ident[0], []) if ident else [])
    return ordered + [p for p in revisions if p not in ordered]


def _sql_file(path: Path, pg_version: int) -> MigrationFile:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDDLError(f"{path}: cannot read: {error}") from None
    return MigrationFile(path, _statements(text, str(path), pg_version, "psql", {}), text)


def _revision(path: Path, pg_version: int) -> MigrationFile:
    source = _read_revision(path)
    (result,) = alembic_offline.offline_sql([path])
    if result.error is not None:
        raise AgentDDLError(
            f"{path}:{result.error_line}: Alembic cannot render this revision: {result.error}"
        )
    statements = _statements(result.sql, str(path), pg_version, "alembic", result.markers)
    return MigrationFile(path, statements, source)


def _read_revision(path: Path) -> str:
    """The revision's source; one that is not valid Python fails where Python says, not
    with 'not a revision'."""
    try:
        source = path.read_text(encoding="utf-8")
        compile(source, str(path), "exec")
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDDLError(f"{path}: cannot read: {error}") from None
    except SyntaxError as error:
        raise AgentDDLError(f"{path}:{error.lineno or 1}:{error.offset or 1}: {error.msg}") from None
    return source


def _statements(
    text: str, file: str, pg_version: int, runner: Literal["psql", "alembic"], markers: dict[int, int]
) -> list[PlannedStatement]:
    migration = walk(text, file, pg_version, runner)
    if migration.syntax_error is not None:
        line, column = migration.source.position(migration.syntax_error.offset)
        where = f"{line}:{column}" if runner == "psql" else str(markers.get(line) or 1)  # the op.* line
        raise AgentDDLError(f"{file}:{where}: {migration.syntax_error.message}")
    planned = []
    for statement, _context in migration.steps:
        if statement.in_do_block or _bookkeeping(statement.node):
            continue  # runs as part of its DO block; the migration tool's version table
        control = _control(statement.node)
        line = markers.get(statement.line, 0) if runner == "alembic" else statement.line
        if runner == "alembic" and line == 0 and control is None:
            continue  # alembic_version bookkeeping (no op.* line)
        planned.append(
            PlannedStatement(
                file=file,
                line=line or 1,
                sql=statement.sql,
                node=statement.node,
                in_block=statement.in_transaction_block,
                control=control,
                needs_autocommit=_needs_autocommit(statement.node, pg_version),
                copy_data=_copy_data(statement.node, migration.text, statement.offset + len(statement.sql)),
                column=statement.column if runner == "psql" else 0,  # Alembic: the op.* line only
            )
        )
    return planned


def _needs_autocommit(node: Any, pg_version: int) -> bool:
    """Refused in a transaction block, or a CALL: a procedure may COMMIT as it goes, which
    only works outside one (psql runs a CALL of its own so); the tracer must not wrap it."""
    return no_transaction_block(node, pg_version) is not None or isinstance(node, ast.CallStmt)


def _bookkeeping(node: Any) -> bool:
    """CREATE TABLE / INSERT / UPDATE / DELETE of a migration tool's version table."""
    if not isinstance(node, (ast.CreateStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt)):
        return False
    return node.relation is not None and node.relation.relname in BOOKKEEPING_TABLES


def _copy_data(node: Any, text: str, statement_end: int) -> str | None:
    """The data lines a COPY ... FROM STDIN reads from the script, else None."""
    if isinstance(node, ast.CopyStmt) and node.is_from and _to_client(node):
        return psql_script.copy_data(text, statement_end)
    return None


def _to_client(node: ast.CopyStmt) -> bool:
    return node.filename is None and not node.is_program


def _control(node: Any) -> Control | None:
    if not isinstance(node, ast.TransactionStmt):
        return None
    kind = enums.TransactionStmtKind
    if node.kind in (kind.TRANS_STMT_BEGIN, kind.TRANS_STMT_START):
        return "begin"
    if node.kind in (kind.TRANS_STMT_COMMIT, kind.TRANS_STMT_PREPARE):
        return "commit"
    if node.kind == kind.TRANS_STMT_ROLLBACK:
        return "rollback"
    return None  # SAVEPOINT and friends run as ordinary statements
