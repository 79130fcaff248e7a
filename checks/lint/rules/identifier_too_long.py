"""ADL213: a name longer than 63 bytes, which PostgreSQL truncates without an error."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.parser import ParseError, scan

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes

MAX_IDENTIFIER_BYTES = 63  # NAMEDATALEN - 1
# Statements that name a new object (or give an object a new name).
_NAMING = (
    ast.CreateStmt,
    ast.CreateTableAsStmt,
    ast.IndexStmt,
    ast.AlterTableStmt,
    ast.CreateSeqStmt,
    ast.ViewStmt,
    ast.CreateEnumStmt,
    ast.CompositeTypeStmt,
    ast.CreateDomainStmt,
    ast.CreateSchemaStmt,
    ast.CreateFunctionStmt,
    ast.CreateTrigStmt,
    ast.RenameStmt,
)


class IdentifierTooLong(Rule):
    """
    ## What it does
    Flags a name longer than 63 bytes given to a new table, column, index, constraint,
    sequence, view, type, schema, function or trigger (or by `RENAME ... TO`). A
    **warning**; an **error** when its first 63 bytes are those of another name made in
    the same statement or earlier in the migration, so the two collide. Names are
    measured in bytes, as PostgreSQL does (`NAMEDATALEN` is 64 on every version):
    `é` counts two. Long names that only refer to existing objects are not flagged.

    ## Why is this bad?
    PostgreSQL silently truncates a longer identifier to 63 bytes (a NOTICE, no
    error). Two names that differ only after byte 63 become the same name: the second
    `CREATE` fails with "already exists", or with `IF NOT EXISTS` is silently skipped,
    and two columns or constraints of one table collide. Even alone, the object's real
    name differs from the one in the migration and the application's code, so tools
    that compare them (Alembic's autogenerate, ORMs naming constraints) see a
    difference on every run.

    ## Example
    ```sql
    CREATE INDEX idx_agent_runs_tenant_id_status_created_at_finished_at_priority_a
        ON agent.runs (tenant_id, status, created_at, finished_at, priority);
    ```

    ## Use instead
    ```sql
    CREATE INDEX idx_runs_tenant_status_created_finished_priority
        ON agent.runs (tenant_id, status, created_at, finished_at, priority);
    ```

    ## In an Alembic migration
    Pass a shorter `name=` to `op.create_index`, `op.create_foreign_key` and the
    constraints, or shorten the `naming_convention` of the MetaData so generated names
    stay within 63 bytes.

    ## References
    - https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS
    """

    code = "ADL213"
    name = "identifier-too-long"
    severity = "warning"
    node_types = _NAMING

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if statement.in_do_block or len(statement.sql.encode()) <= MAX_IDENTIFIER_BYTES:
            return
        made = set(_names_made(statement.node))
        seen: dict[str, str] = {}
        for offset, name in _long_identifiers(statement.sql):
            cut = truncated(name)
            if cut not in made or seen.get(cut) == name:
                continue  # it refers to an existing object, or was reported already
            other = seen.get(cut) or _made_earlier(name, cut, context)
            seen.setdefault(cut, name)
            yield _violation(name, cut, other, offset)


def _violation(name: str, cut: str, other: str | None, offset: int) -> Violation:
    size = len(name.encode())
    if other is not None and other != name:
        return Violation(
            message=f"{name!r} ({size} bytes) and {other!r} are both truncated to {cut!r}:"
            " the second one collides with the first (already exists).",
            fix="Shorten the names so they differ within their first 63 bytes.",
            location=offset,
            severity="error",
        )
    return Violation(
        message=f"{name!r} is {size} bytes: PostgreSQL silently truncates it to {cut!r}.",
        fix="Use a name of at most 63 bytes, the same in the migration and in the code.",
        location=offset,
    )


def truncated(name: str) -> str:
    """The name PostgreSQL stores: its first 63 bytes, never splitting a character."""
    data = name.encode()[:MAX_IDENTIFIER_BYTES]
    return data.decode(errors="ignore")


def _long_identifiers(sql: str) -> Iterator[tuple[int, str]]:
    """(character offset, identifier as PostgreSQL reads it) of every identifier token
    longer than 63 bytes (the scanner's offsets are in characters)."""
    try:
        tokens = scan(sql)
    except ParseError:
        return
    for token in tokens:
        if token.name != "IDENT" or 4 * (token.end - token.start + 1) <= MAX_IDENTIFIER_BYTES:
            continue  # at most four bytes a character: too short to be too long
        raw = sql[token.start : token.end + 1]
        name = raw[1:-1].replace('""', '"') if raw.startswith('"') else raw.lower()
        if len(name.encode()) > MAX_IDENTIFIER_BYTES:
            yield token.start, name


def _names_made(node: object) -> Iterator[str]:
    """The (already truncated) names a statement gives to new objects."""
    if isinstance(node, ast.RenameStmt):
        if node.newname:
            yield node.newname
        return
    created = _created_relation(node)
    if created is not None:
        yield created.relname or ""
    for part in iter_nodes(node):
        if isinstance(part, ast.ColumnDef) and part.colname:
            yield part.colname
        elif isinstance(part, ast.Constraint) and part.conname:
            yield part.conname
    yield from _own_name(node)


def _created_relation(node: object) -> ast.RangeVar | None:
    if isinstance(node, (ast.CreateStmt, ast.CreateSeqStmt)):
        return node.relation if isinstance(node, ast.CreateStmt) else node.sequence
    if isinstance(node, ast.ViewStmt):
        return node.view
    if isinstance(node, ast.CreateTableAsStmt) and node.into is not None:
        return node.into.rel
    if isinstance(node, ast.CompositeTypeStmt):
        return node.typevar
    return None


def _own_name(node: object) -> Iterator[str]:
    if isinstance(node, ast.IndexStmt) and node.idxname:
        yield node.idxname
    elif isinstance(node, ast.CreateSchemaStmt) and node.schemaname:
        yield node.schemaname
    elif isinstance(node, ast.CreateTrigStmt) and node.trigname:
        yield node.trigname
    elif isinstance(node, (ast.CreateEnumStmt, ast.CreateDomainStmt, ast.CreateFunctionStmt)):
        names = node.typeName if isinstance(node, ast.CreateEnumStmt) else _domain_or_function(node)
        last = names[-1] if names else None
        if isinstance(last, ast.String) and last.sval:
            yield last.sval


def _domain_or_function(node: ast.CreateDomainStmt | ast.CreateFunctionStmt) -> tuple[object, ...]:
    if isinstance(node, ast.CreateDomainStmt):
        return tuple(node.domainname or ())
    return tuple(node.funcname or ())


def _made_earlier(name: str, cut: str, context: Context) -> str | None:
    """A different long name earlier in the migration that truncates to `cut`."""
    for earlier in context.earlier_of(*_NAMING):
        if cut not in earlier.sql.lower() and cut not in earlier.sql:
            continue  # cheap test first: most statements have no such name
        if cut not in set(_names_made(earlier.node)):
            continue
        for _, other in _long_identifiers(earlier.sql):
            if truncated(other) == cut and other != name:
                return other
    return None
