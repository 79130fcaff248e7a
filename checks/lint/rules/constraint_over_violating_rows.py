"""ADL216: a CHECK or FOREIGN KEY validated over rows that may violate it."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import AlterTableType, ConstrType

from agentddl.checks.lint.existing_table import ExistingTableRule
from agentddl.checks.lint.probe import (
    DataCheck,
    column_sql,
    data_check,
    deparsed,
    quoted,
    rows_written_earlier,
)
from agentddl.checks.lint.types import Context, RelationName, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes, name_list
from agentddl.checks.pg.columns import (
    added_columns,
    added_constraints,
    column_ref_name,
    commands_of,
    is_validating,
)
from agentddl.checks.pg.earlier import column_added_earlier
from agentddl.checks.pg.foreign_keys import MATCH_FULL, ForeignKey, foreign_key, known_foreign_keys
from agentddl.checks.pg.validated import validated_constraints

ENFORCEABLE_SINCE = 18  # NOT ENFORCED constraints, ALTER CONSTRAINT ... ENFORCED
_NOT_VALID = "add it NOT VALID, fix the rows in batches, VALIDATE it."
_FIX_FIRST = "fix the violating rows in batches first, then VALIDATE it."
_ENFORCE_LATER = "fix the rows in batches first, or drop the key, add it again NOT VALID and VALIDATE it."


class ConstraintOverViolatingRows(ExistingTableRule):
    """
    ## What it does
    Flags a `CHECK` or `FOREIGN KEY` constraint added without `NOT VALID` (or validated
    later) on a table that existed before this migration: it checks every existing row, and
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

    `VALIDATE CONSTRAINT name` reads every row too: the second half of the safe way to
    add a constraint fails on the rows the first half let stay. It is judged the same
    way when the constraint's definition is known: from an `ADD CONSTRAINT ... NOT
    VALID` earlier in the migration, or from `--schema-from` (a constraint it shows
    validated already is not flagged); not known, the warning says it could not be
    checked. A NOT NULL constraint's validation is not-null-over-nulls' finding.

    Version-aware: on PostgreSQL 18 a constraint added `NOT ENFORCED` checks no row
    (not flagged; before 18 it is a syntax error, syntax-not-in-target-version's
    finding), and `ALTER CONSTRAINT fk ENFORCED` validates every row of a foreign key
    that was not enforced, so it is flagged like an added one (its key from
    `--schema-from` or this migration; unknown, the warning says it could not be
    checked).

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

    def check_table(self, statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
        kinds = (ConstrType.CONSTR_CHECK, ConstrType.CONSTR_FOREIGN)
        added = {str(column.colname) for column in added_columns(statement.node)}
        for constraint in added_constraints(statement.node, *kinds):
            if not is_validating(constraint) or _over_new_columns(constraint, added, table, context):
                continue
            named = f"constraint {constraint.conname}" if constraint.conname else "constraint"
            if constraint.contype == ConstrType.CONSTR_CHECK:
                raw = constraint.raw_expr
                found = _check(context, table, deparsed(raw)) if raw is not None else None
            else:
                key = foreign_key(constraint, table, context)
                found = _orphans(context, key, constraint.fk_matchtype == MATCH_FULL) if key else None
            if found is not None:
                yield _violation(f"Adding {named}", table, found, _NOT_VALID)
        yield from _validated(statement, context, table)
        if context.pg_version >= ENFORCEABLE_SINCE:
            yield from _enforced(statement, context, table)


def _violation(doing: str, table: RelationName, found: DataCheck, then: str) -> Violation:
    return Violation(
        message=f"{doing} fails if a row of {table} already violates it.{_unknown_note(found)}",
        fix=f"Check first ({found.sql}); {then}" if found.sql else f"{then[0].upper()}{then[1:]}",
        by_size=False,
        data_check=found,
    )


def _validated(statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
    """`VALIDATE CONSTRAINT name` of a CHECK or foreign key (a NOT NULL's is
    not-null-over-nulls'), or of a constraint whose definition is not known."""
    for validated in validated_constraints(statement, context, table):
        name = validated.name
        if validated.kind == "check" and validated.expression is not None:
            found = _check(context, table, validated.expression)
        elif validated.kind == "foreign" and validated.key is not None:
            found = _orphans(context, validated.key, validated.match_full)
        elif validated.kind is None:
            unknown = f"rows of {table} that {name} rejects"
            found = DataCheck("", unknown, f"the definition of {name} is not known")
        else:
            continue
        yield _violation(f"Validating constraint {name}", table, found, _FIX_FIRST)


def _unknown_note(found: DataCheck) -> str:
    """What the message adds when the constraint's definition is not known."""
    if found.sql:
        return ""
    return " Its definition is in neither the schema read nor this migration, so it could not be checked."


def _enforced(statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
    """`ALTER CONSTRAINT fk ENFORCED` (PostgreSQL 18) validates the rows of a foreign
    key that was NOT ENFORCED; a CHECK's enforceability cannot be altered."""
    for command in commands_of(statement.node, AlterTableType.AT_AlterConstraint):
        change = command.def_
        if not isinstance(change, ast.ATAlterConstraint) or not (
            change.alterEnforceability and change.is_enforced
        ):
            continue
        name = str(change.conname)
        keys = [k for k in known_foreign_keys(context) if k.table == table and k.name == name]
        if keys:
            found = _orphans(context, keys[0], match_full=False)
        else:
            unknown = f"rows of {table} that {name} rejects"
            found = DataCheck("", unknown, f"the foreign key {name} is not known")
        yield _violation(f"Enforcing constraint {name}", table, found, _ENFORCE_LATER)


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


def _check(context: Context, table: RelationName, expression: str) -> DataCheck:
    query = f"SELECT FROM {quoted(table)} WHERE NOT ({expression})"
    return data_check(context, [table], query, f"rows of {table} where {expression} is false")


def _orphans(context: Context, key: ForeignKey, match_full: bool) -> DataCheck:
    """A row of the key's table whose non-NULL key has no referenced row (MATCH FULL:
    also a key partly NULL)."""
    table, parent, columns = key.table, key.references, key.columns
    keys = key.ref_columns or (context.schema.primary_key(parent) if context.schema is not None else ())
    child = [f"child.{column_sql(c)}" for c in columns]
    if len(keys) == len(columns):
        matched = " AND ".join(f"parent.{column_sql(k)} = {c}" for k, c in zip(keys, child, strict=True))
    else:  # never run (blocked below); said in the fix
        matched = f"(parent's primary key) = ({', '.join(child)})"
    orphan = f"NOT EXISTS (SELECT FROM {quoted(parent)} AS parent WHERE {matched})"
    if match_full:
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
