"""ADL214: a UNIQUE index or constraint that existing duplicates make fail."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.probe import column_sql, data_check, deparsed, quoted
from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.columns import added_constraints, existing_altered_table
from agentddl.checks.pg.earlier import is_new

NULLS_NOT_DISTINCT_SINCE = 15  # before: a syntax error


class UniqueOverDuplicates(Rule):
    """
    ## What it does
    Flags a unique index or constraint added over the rows of a table that existed
    before this migration: `CREATE UNIQUE INDEX [CONCURRENTLY]` and `ALTER TABLE ...
    ADD UNIQUE (...)` / `ADD PRIMARY KEY (...)` that build their index (one adopted
    `USING INDEX` is unique already). Whether it fails depends on the rows, so without
    a database it is a **warning** saying what to check. With `--schema-from
    postgresql://...` the linter asks that database, with one read-only `SELECT EXISTS
    (...)` under a statement_timeout: an **error** when it holds duplicate keys (the
    message says what was counted and how long it took), nothing when it holds none,
    and the warning again when the check timed out or the table is changed earlier in
    the migration. The check follows the index: its expressions, its `WHERE`
    predicate, and `NULLS NOT DISTINCT` (PostgreSQL 15+: rows whose keys are NULL
    collide too, and are counted; otherwise a row with a NULL key never collides and
    is not). Before PostgreSQL 15 `NULLS NOT DISTINCT` is a syntax error, which is
    syntax-not-in-target-version's finding: this rule says nothing then. A primary
    key's NULLs are not-null-over-nulls' finding.

    ## Why is this bad?
    The build fails at the first duplicate key ("could not create unique index"),
    after reading the whole table: the migration stops half-way (the rest of its
    transaction rolls back; psql without a transaction leaves the earlier statements
    applied), and `CREATE UNIQUE INDEX CONCURRENTLY` leaves an INVALID index behind
    that every write still maintains until it is dropped. Staging data rarely has
    production's duplicates, so the migration passes there.

    ## Example
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY users_email_key ON public.users (email);
    ```

    ## Use instead
    Look for duplicates on production (or a recent copy) first, and merge or delete
    them in an earlier, batched step:
    ```sql
    SELECT email, count(*) FROM public.users
    WHERE email IS NOT NULL GROUP BY email HAVING count(*) > 1 LIMIT 10;
    ```
    Then build the index; keep the application from writing new duplicates meanwhile.

    ## In an Alembic migration
    Run the duplicate check in a data revision before the one that calls
    `op.create_index(..., unique=True, postgresql_concurrently=True)`, or lint the
    rendered SQL with `--schema-from` pointing at production (read-only).

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/indexes-unique.html
    """

    code = "ADL214"
    name = "unique-over-duplicates"
    severity = "warning"
    node_types = (ast.IndexStmt, ast.AlterTableStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if isinstance(node, ast.IndexStmt):
            if not node.unique or node.relation is None or is_new(node.relation, context):
                return
            nulls = bool(node.nulls_not_distinct)
            if _runs(nulls, context):
                keys = [_key(element) for element in node.indexParams or ()]
                predicate = deparsed(node.whereClause) if node.whereClause is not None else None
                indexed = relation_name(node.relation, context)
                yield _violation(context, indexed, keys, predicate, nulls, "index")
            return
        table = existing_altered_table(statement, context)
        if table is None:
            return
        for constraint in added_constraints(node, ConstrType.CONSTR_UNIQUE, ConstrType.CONSTR_PRIMARY):
            nulls = bool(constraint.nulls_not_distinct)
            if constraint.indexname is None and constraint.keys and _runs(nulls, context):
                keys = [column_sql(key.sval) for key in constraint.keys]
                kind = "primary key" if constraint.contype == ConstrType.CONSTR_PRIMARY else "constraint"
                yield _violation(context, table, keys, None, nulls, kind)


def _runs(nulls_not_distinct: bool, context: Context) -> bool:
    """The statement parses on the target version (NULLS NOT DISTINCT: 15+)."""
    return not nulls_not_distinct or context.pg_version >= NULLS_NOT_DISTINCT_SINCE


def _key(element: ast.IndexElem) -> str:
    if element.name or element.expr is None:
        return column_sql(str(element.name))
    return f"({deparsed(element.expr)})"


def _violation(
    context: Context, table: RelationName, keys: Sequence[str], predicate: str | None, nulls: bool, kind: str
) -> Violation:
    listed = ", ".join(keys)
    shown = ", ".join(key[1:-1] if key.startswith("(") else key for key in keys)
    where = [] if nulls else [f"{key} IS NOT NULL" for key in keys]
    where += [f"({predicate})"] if predicate else []
    query = (
        f"SELECT FROM {quoted(table)} WHERE {' AND '.join(where) or 'true'}"
        f" GROUP BY {listed} HAVING count(*) > 1"
    )
    duplicates = f"duplicate ({shown}) values{' (NULLs included: NULLS NOT DISTINCT)' if nulls else ''}"
    return Violation(
        message=f"This unique {kind} fails if {table} already holds {duplicates}.",
        fix=f"Look for duplicates first (SELECT EXISTS ({query})) and merge them in an earlier step.",
        by_size=False,
        data_check=data_check(context, [table], query, f"{duplicates} in {table}"),
    )
