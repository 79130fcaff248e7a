"""Parse a migration once and walk it in order, building each statement's Context.

The transaction model is the runner's real one:
- psql: every statement autocommits on its own unless inside an explicit
  BEGIN/START TRANSACTION ... COMMIT/ROLLBACK block.
- alembic: `alembic upgrade --sql` prints explicit BEGIN; ... COMMIT; around each
  revision and turns `autocommit_block()` into COMMIT; ... BEGIN;, so explicit
  statements are the truth. A file with no transaction statement at all (a bare SQL
  snippet as `op.execute` would run it) runs inside Alembic's one transaction.
A DO block runs in one transaction; its inner statements are yielded after it with
`in_do_block=True`, located at the DO statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pglast
from pglast import ast, enums

from agentddl.checks.pg import psql_script, settings, tool_markers
from agentddl.checks.pg.ast_helpers import resolve
from agentddl.checks.pg.earlier import index_keys
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.plpgsql import do_block_sql
from agentddl.checks.pg.schema import SchemaFacts
from agentddl.checks.pg.source import SourceMap, skip_trivia
from agentddl.checks.pg.statements import Context, Earlier, History, Runner, Statement


@dataclass(frozen=True)
class SyntaxProblem:
    """Why a file could not be parsed, and where (0-based character offset)."""

    message: str
    offset: int


@dataclass
class Migration:
    """A parsed migration: (statement, context before it) pairs, or a syntax problem."""

    file: str
    text: str
    source: SourceMap
    steps: list[tuple[Statement, Context]] = field(default_factory=list)
    syntax_error: SyntaxProblem | None = None


def walk(
    text: str,
    file: str,
    pg_version: int,
    runner: Runner,
    options: dict[str, Any] | None = None,
    schema: SchemaFacts | None = None,
) -> Migration:
    """Parse `text` and build every statement with the Context in force before it
    (`schema`: what is known of the database before the migration, for every Context)."""
    migration = Migration(file=file, text=text, source=SourceMap(text))
    wrapped = opted_out = False  # a migration tool runs the whole file in one transaction, or says not
    if runner == "psql":
        up = tool_markers.up_section(text)  # goose / dbmate / sql-migrate: the up part
        # psql's own syntax (meta-commands, COPY data, :variables) is not SQL.
        text, wrapped, opted_out = psql_script.as_sql(up.text), up.in_transaction, up.opted_out
    if "\x00" in text:  # the parser reads up to a NUL as C does; PostgreSQL refuses it
        why = "it contains a NUL byte, which PostgreSQL never accepts in SQL"
        migration.syntax_error = SyntaxProblem(why, text.index("\x00"))
        return migration
    try:
        raw_statements = pglast.parse_sql(text)
    except pglast.parser.ParseError as error:
        offset = error.args[1] if len(error.args) > 1 and error.args[1] else 0
        migration.syntax_error = SyntaxProblem(str(error.args[0]), int(offset))
        return migration
    base = Context(
        pg_version=pg_version,
        runner=runner,
        no_transaction_marker=opted_out,
        options=dict(options or {}),
        schema=schema,
    )
    implicit = (runner == "alembic" or wrapped) and not _has_tcl(raw_statements)
    state = _State(base, implicit_transaction=implicit)
    for raw in raw_statements:
        for statement in state.statements(raw, text, migration.source, file):
            context = state.context()
            migration.steps.append((statement, context))
            state.after(statement, context)
    return migration


def _has_tcl(raw_statements: tuple[ast.RawStmt, ...]) -> bool:
    return any(isinstance(raw.stmt, ast.TransactionStmt) for raw in raw_statements)


class _State:
    """The walker's mutable view of the session; `context()` freezes it."""

    def __init__(self, base: Context, implicit_transaction: bool) -> None:
        self.base = base
        self.in_block = implicit_transaction
        self.transaction = 1 if implicit_transaction else 0
        self.session: dict[str, Any] = dict(settings.DEFAULTS)
        self.local: dict[str, Any] = {}
        self.created: set[RelationName] = set()
        self.saved: tuple[dict[str, Any], set[RelationName]] | None = None
        self.earlier: list[Statement] = []
        self.history = History()
        self._frozen_created: frozenset[RelationName] | None = None
        self.index = 0

    # -- building statements -------------------------------------------------------

    def statements(self, raw: ast.RawStmt, text: str, source: SourceMap, file: str) -> Iterator[Statement]:
        start, end = span(raw, text)
        line, column = source.position(start)
        node = raw.stmt
        self._begin_statement(node)
        top = Statement(
            node=node,
            sql=text[start:end].rstrip(),
            file=file,
            line=line,
            column=column,
            offset=start,
            index=self.index,
            transaction=self.transaction,
            in_transaction_block=self.in_block or isinstance(node, ast.TransactionStmt),
        )
        yield top
        if isinstance(node, ast.DoStmt):
            for inner_sql in do_block_sql(node):
                for inner in _parse_quietly(inner_sql):
                    yield replace(
                        top,
                        node=inner.stmt,
                        sql=_raw_text(inner, inner_sql),
                        index=self.index,
                        in_transaction_block=True,
                        in_do_block=True,
                    )
        self._end_statement()

    def _begin_statement(self, node: Any) -> None:
        if isinstance(node, ast.TransactionStmt):
            starts = (
                enums.TransactionStmtKind.TRANS_STMT_BEGIN,
                enums.TransactionStmtKind.TRANS_STMT_START,
            )
            if node.kind in starts and not self.in_block:
                self._open_block()  # BEGIN belongs to the transaction it opens
            return
        if not self.in_block:
            self.transaction += 1  # autocommit: a transaction of its own

    def _end_statement(self) -> None:
        if not self.in_block:
            self.local.clear()  # SET LOCAL (e.g. inside a DO) ends with the statement

    # -- state changes ------------------------------------------------------------------

    def context(self) -> Context:
        effective = {**self.session, **self.local}
        return Context(  # built directly: dataclasses.replace costs twice as much
            pg_version=self.base.pg_version,
            runner=self.base.runner,
            no_transaction_marker=self.base.no_transaction_marker,
            search_path=_search_path(effective),
            created_relations=self._created_snapshot(),
            lock_timeout_ms=int(effective["lock_timeout"]),
            statement_timeout_ms=int(effective["statement_timeout"]),
            timezone=effective["timezone"],
            earlier=Earlier(self.earlier, len(self.earlier)),
            options=self.base.options,
            schema=self.base.schema,
            history=self.history,
        )

    def _created_snapshot(self) -> frozenset[RelationName]:
        """One frozenset per change of `created`, shared by the contexts in between."""
        if self._frozen_created is None:
            self._frozen_created = frozenset(self.created)
        return self._frozen_created

    def after(self, statement: Statement, context: Context) -> None:
        """Apply what `statement` did to the session, then remember it."""
        self.index += 1
        node = statement.node
        if isinstance(node, ast.TransactionStmt):
            self._transaction_statement(node)
        else:
            self._apply_settings(node, statement.in_transaction_block)
            before = len(self.created)
            self._record_created(node)
            if len(self.created) != before:
                self._frozen_created = None
        self.earlier.append(statement)
        self.history.add(statement, context, index_keys(statement))

    def _transaction_statement(self, node: ast.TransactionStmt) -> None:
        kind = enums.TransactionStmtKind
        if node.kind in (kind.TRANS_STMT_COMMIT, kind.TRANS_STMT_PREPARE):
            self._close_block(commit=True, chain=bool(node.chain))
        elif node.kind == kind.TRANS_STMT_ROLLBACK:
            self._close_block(commit=False, chain=bool(node.chain))

    def _open_block(self) -> None:
        self.in_block = True
        self.transaction += 1
        self.saved = (dict(self.session), set(self.created))

    def _close_block(self, commit: bool, chain: bool) -> None:
        if not commit and self.saved is not None:
            self.session, self.created = dict(self.saved[0]), set(self.saved[1])
            self._frozen_created = None
        self.local.clear()
        self.in_block, self.saved = False, None
        if chain:
            self._open_block()

    def _apply_settings(self, node: Any, in_block: bool) -> None:
        for change in settings.changes(node):
            if change.name == "all":
                self.session, self.local = dict(settings.DEFAULTS), {}
            elif change.is_local:
                if in_block:  # SET LOCAL outside a transaction block does nothing
                    self.local[change.name] = _or_default(change)
            else:
                self.session[change.name] = _or_default(change)
                self.local.pop(change.name, None)

    def _record_created(self, node: Any) -> None:
        renames = isinstance(node, ast.RenameStmt) and node.relation is not None and node.newname
        if not renames and not created_names(node):
            return
        context = self.context_for_names()
        if renames:
            old = resolve(node.relation.schemaname, node.relation.relname or "", context)
            if old in self.created and node.subname is None:
                self.created.add(RelationName(old.schema, node.newname))
        for schema, name in created_names(node):
            if schema == "pg_temp" or (schema is None and _is_temp(node)):
                self.created.add(RelationName("pg_temp", name))
            else:
                self.created.add(resolve(schema, name, context))

    def context_for_names(self) -> Context:
        """The base context with the search_path in force (for resolving names)."""
        return replace(self.base, search_path=_search_path({**self.session, **self.local}))


def _search_path(effective: dict[str, Any]) -> tuple[str, ...]:
    """The schemas unqualified names resolve in (pg_catalog and $user left out)."""
    path = tuple(s for s in effective["search_path"] if s not in ("$user", "pg_catalog"))
    return path or ("public",)


def _or_default(change: settings.SettingChange) -> Any:
    return settings.DEFAULTS[change.name] if change.value is None else change.value


def _is_temp(node: Any) -> bool:
    relation = getattr(node, "relation", None) or getattr(getattr(node, "into", None), "rel", None)
    return getattr(relation, "relpersistence", "p") == "t"


def created_names(node: Any) -> list[tuple[str | None, str]]:
    """(schema or None, name) of every relation a CREATE statement makes."""
    if isinstance(node, ast.IndexStmt):
        if node.idxname and node.relation is not None:
            return [(node.relation.schemaname, node.idxname)]
        return []
    if isinstance(node, (ast.CreateTableAsStmt, ast.SelectStmt)):
        into = node.into if isinstance(node, ast.CreateTableAsStmt) else node.intoClause
        relation = into.rel if into is not None else None
    else:
        field_name = _CREATED_FIELD.get(type(node))
        relation = getattr(node, field_name) if field_name else None
    if isinstance(relation, ast.RangeVar) and relation.relname:
        return [(relation.schemaname, relation.relname)]
    return []


_CREATED_FIELD: dict[type, str] = {
    ast.CreateStmt: "relation",
    ast.ViewStmt: "view",
    ast.CreateSeqStmt: "sequence",
}


def _parse_quietly(sql: str) -> tuple[ast.RawStmt, ...]:
    try:
        return tuple(pglast.parse_sql(sql))
    except pglast.parser.ParseError:
        return ()


def _raw_text(raw: ast.RawStmt, sql: str) -> str:
    start, end = span(raw, sql)
    return sql[start:end].strip()


def span(raw: ast.RawStmt, text: str) -> tuple[int, int]:
    """Start (first word, past comments) and end offsets of a RawStmt in `text`."""
    location = raw.stmt_location or 0
    end = location + raw.stmt_len if raw.stmt_len else _last_token_end(text, location)
    return skip_trivia(text, location), end


def _last_token_end(text: str, start: int) -> int:
    """The end of the last statement, which runs to the end of the text: without the
    trailing comments (stmt_len is 0 there)."""
    try:
        tokens = pglast.parser.scan(text[start:])
    except pglast.parser.ParseError:
        return len(text)
    code = [t for t in tokens if t.name not in ("SQL_COMMENT", "C_COMMENT")]
    return start + code[-1].end + 1 if code else len(text)
