"""ADL216: a CHECK or FOREIGN KEY validated over rows that may violate it."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.probe import (
    DataCheck,
    column_sql,
    data_check,
    deparsed,
    quoted,
    rows_written_earlier,
)
from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes, name_list, relation_name
from agentddl.checks.pg.columns import (
    added_columns,
    added_constraints,
    column_ref_name,
    existing_altered_table,
    is_validating,
)
from agentddl.checks.pg.earlier import column_added_earlier

_MATCH_FULL = "f"


class ConstraintOverViolatingRows(Rule):
    """
    ## What it does
    Flags a `CHECK` or `FOREIGN KEY` constraint added without `NOT VALID` to a table
    that existed before this migration: adding it validates every existing row, and
    whether one violates it depends on the data. Without a database it is a
    **warning** saying what to check. With `--schema-from postgresql://...` the linter
    asks that database, with one read-only `SELECT EXISTS (...)` under a
    statement_timeout: for a CHECK, a row where the expression is false; for a foreign
    key, a row whose non-NULL key has no referenced row (`MATCH FULL`: also a key
    partly NULL). An **error** when such a row exists (the message says what was
    counted and how long it took), nothing when none does, and the warning again when
    the check timed out, the referenced key columns are not known, or a table is
    created or changed earlier in the migration. A constraint over a column the migration
    adds is not flagged unless a statement writes the table in between: the rows hold
    its default or NULL, not old data.

    The lock the validation holds is constraint-missing-not-valid's finding; this one
    is about the migration failing.

    ## Why is this bad?
    PostgreSQL fails the `ALTER TABLE` at the first violating row ("check constraint
    ... is violated by some row", "insert or update on table ... violates foreign key
    constraint"), after scanning the table (and, for a foreign key, probing the
    referenced one) under a lock: the migration stops half-way. Orphans and
    out-of-range values are exactly what staging copies lack.

    ## Example
    ```sql
    ALTER TABLE agent.events ADD CONSTRAINT events_seq_positive CHECK (seq > 0);
    ALTER TABLE agent.events ADD CONSTRAINT events_run_fk
        FOREIGN KEY (run_id) REFERENCES agent.runs (id);
    ```

    ## Use instead
    Add it `NOT VALID` (new rows are checked at once), fix the existing rows in
    batches, then `VALIDATE CONSTRAINT` in its own transaction; check first:
    ```sql
    SELECT EXISTS (SELECT FROM agent.events e WHERE e.run_id IS NOT NULL
                   AND NOT EXISTS (SELECT FROM agent.runs r WHERE r.id = e.run_id));
    ```

    ## In an Alembic migration
    `op.create_check_constraint(..., postgresql_not_valid=True)` or
    `op.create_foreign_key(..., postgresql_not_valid=True)`, the cleanup in its own
    revision, then `op.execute("ALTER TABLE ... VALIDATE CONSTRAINT ...")`.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    - https://www.postgresql.org/docs/current/ddl-constraints.html
    """

    code = "ADL216"
    name = "constraint-over-violating-rows"
    severity = "warning"
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        table = existing_altered_table(statement, context)
        if table is None:
            return
        kinds = (ConstrType.CONSTR_CHECK, ConstrType.CONSTR_FOREIGN)
        added = {str(column.colname) for column in added_columns(statement.node)}
        for constraint in added_constraints(statement.node, *kinds):
            if not is_validating(constraint) or _over_new_columns(constraint, added, table, context):
                continue
            named = f"constraint {constraint.conname}" if constraint.conname else "constraint"
            found = (
                _check(context, table, constraint) if constraint.contype == ConstrType.CONSTR_CHECK else None
            )
            found = found or _foreign_key(context, table, constraint)
            if found is None:
                continue
            yield Violation(
                message=f"Adding {named} fails if a row of {table} already violates it.",
                fix=f"Check first ({found.sql}); add it NOT VALID, fix the rows in batches, VALIDATE it.",
                by_size=False,
                data_check=found,
            )


def _over_new_columns(
    constraint: ast.Constraint, added: set[str], table: RelationName, context: Context
) -> bool:
    """The constraint reads a column this migration added, and nothing wrote the table
    since: the rows hold its default or NULL, not old data."""
    if constraint.contype == ConstrType.CONSTR_FOREIGN:
        columns = set(name_list(constraint.fk_attrs or ()))
    else:
        columns = {
            name for node in iter_nodes(constraint.raw_expr) if (name := column_ref_name(node)) is not None
        }
    new = columns & added or {c for c in columns if column_added_earlier(table, c, context)}
    return bool(new) and not rows_written_earlier(table, context)


def _check(context: Context, table: RelationName, constraint: ast.Constraint) -> DataCheck | None:
    if constraint.raw_expr is None:
        return None
    expression = deparsed(constraint.raw_expr)
    query = f"SELECT FROM {quoted(table)} WHERE NOT ({expression})"
    return data_check(context, [table], query, f"rows of {table} where {expression} is false")


def _foreign_key(context: Context, table: RelationName, constraint: ast.Constraint) -> DataCheck | None:
    if constraint.contype != ConstrType.CONSTR_FOREIGN or constraint.pktable is None:
        return None
    parent = relation_name(constraint.pktable, context)
    columns = name_list(constraint.fk_attrs or ())
    keys = name_list(constraint.pk_attrs or ()) or _primary_key(context, parent)
    child = [f"child.{column_sql(c)}" for c in columns]
    if len(keys) == len(columns):
        matched = " AND ".join(f"parent.{column_sql(k)} = {c}" for k, c in zip(keys, child, strict=True))
    else:  # never run (blocked below); said in the fix
        matched = f"(parent's primary key) = ({', '.join(child)})"
    orphan = f"NOT EXISTS (SELECT FROM {quoted(parent)} AS parent WHERE {matched})"
    if constraint.fk_matchtype == _MATCH_FULL:
        some, every = (
            " OR ".join(f"{c} IS NOT NULL" for c in child),
            " AND ".join(f"{c} IS NOT NULL" for c in child),
        )
        where = f"({some}) AND (NOT ({every}) OR {orphan})"
    else:
        where = " AND ".join([*(f"{c} IS NOT NULL" for c in child), orphan])
    query = f"SELECT FROM {quoted(table)} AS child WHERE {where}"
    looks_for = f"rows of {table} whose ({', '.join(columns)}) has no row in {parent}"
    found = data_check(context, [table, parent], query, looks_for)
    if len(keys) != len(columns):
        return DataCheck(found.sql, looks_for, f"the key {parent} references is not known")
    return found


def _primary_key(context: Context, table: RelationName) -> list[str]:
    """The referenced table's primary key columns, as the schema shows them."""
    facts = context.schema.table(table) if context.schema is not None else None
    keys = [c.columns for c in facts.constraints if c.kind == "primary"] if facts is not None else []
    return list(keys[0]) if keys else []
