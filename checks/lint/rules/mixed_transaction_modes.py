"""ADL110: a psql file mixing statements that cannot run in a transaction with
transactional changes, without saying how it is meant to run."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.later import built
from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.transactions import no_transaction_block

# Statements that change nothing a rollback would have to undo.
_NEUTRAL = (
    ast.VariableSetStmt,
    ast.VariableShowStmt,
    ast.TransactionStmt,
    ast.SelectStmt,
    ast.ExplainStmt,
    ast.VacuumStmt,
    ast.CommentStmt,
    ast.LockStmt,
    ast.CheckPointStmt,
    ast.DiscardStmt,
)


class MixedTransactionModes(Rule):
    """
    ## What it does
    With `--runner psql`, flags the first statement PostgreSQL refuses to run in a
    transaction block (`CREATE INDEX CONCURRENTLY`, `DROP INDEX CONCURRENTLY`, `REINDEX
    ... CONCURRENTLY`, `DETACH PARTITION CONCURRENTLY`, `VACUUM`, ...) of a file that
    also makes transactional changes (DDL, DML, a `DO` block) outside any `BEGIN` ...
    `COMMIT`, when the file does not say how it runs. Once per file, a **warning**;
    **off by default**: psql runs a plain file statement by statement, which is what
    the usual safe patterns need (build an index concurrently, then attach it with
    `USING INDEX`). Switch it on when your deploy wraps each file in a transaction
    (`psql -1`, Flyway, Sqitch, a CI wrapper): `[tool.agentddl.rules]
    mixed-transaction-modes = "warning"` (or `"error"`).

    What "saying so" is depends on the runner:

    - **psql** (a plain SQL file): explicit transaction blocks. The transactional
      changes between `BEGIN` and `COMMIT`, the statements that cannot run in one
      outside: the file then runs the same under `psql -f` and fails nowhere half-way
      unnoticed.
    - **goose, dbmate, sql-migrate** (their up/down markers): the tool's opt-out marker
      (`-- +goose NO TRANSACTION`, `-- migrate:up transaction:false`, `-- +migrate Up
      notransaction`) says the file runs statement by statement; without it the tool
      wraps the file in a transaction, and concurrently-in-transaction reports the
      statement that then fails.
    - **Alembic** (`--runner alembic`): `with op.get_context().autocommit_block():`
      around the statement says so; without it the revision's transaction makes it
      fail, which concurrently-in-transaction reports. This rule does not run there.

    ## Why is this bad?
    Such a file only works when each statement commits on its own: under `psql
    --single-transaction` (`-1`), or a deploy tool that wraps each file in a transaction
    (Flyway, Sqitch, most CI wrappers), it fails at the `CONCURRENTLY` statement. Run
    statement by statement it is not atomic: when the index build fails (a duplicate
    key, a deadlock, a cancelled wait) the changes before it are committed and those
    after it never run, and the file cannot simply be run again.

    ## Example
    ```sql
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    CREATE INDEX CONCURRENTLY runs_trace_idx ON agent.runs (trace_id);
    ```

    ## Use instead
    ```sql
    BEGIN;
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    COMMIT;
    CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_trace_idx ON agent.runs (trace_id);
    ```
    Or two migration files: the transactional change, then the concurrent build.

    ## In an Alembic migration
    Put the statement in `with op.get_context().autocommit_block():`; the rest of the
    revision stays in Alembic's transaction.

    ## References
    - https://www.postgresql.org/docs/current/app-psql.html (`--single-transaction`)
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://pressly.github.io/goose/documentation/annotations/
    """

    code = "ADL110"
    name = "mixed-transaction-modes"
    severity = "warning"
    enabled_by_default = False

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if context.runner != "psql" or context.no_transaction_marker or not _loose(statement):
            return
        what = no_transaction_block(statement.node, context.pg_version)
        if what is None:
            return
        outside = built(context, "outside-transaction-blocks", lambda: _outside_blocks(context))
        first = next((s for s in outside if no_transaction_block(s.node, context.pg_version)), None)
        change = next((s for s in outside if _transactional(s, context)), None)
        if first is not statement or change is None:
            return
        yield Violation(
            message=f"{what} cannot run in a transaction, and this file also changes the schema"
            f" outside one (line {change.line}): under psql --single-transaction or a tool that"
            " wraps each file it fails here, and run statement by statement it is not atomic:"
            " a failure here leaves the file half applied.",
            fix="Put the transactional changes in BEGIN; ... COMMIT; and keep this statement"
            " outside, or move it to a migration of its own.",
        )


def _loose(statement: Statement) -> bool:
    return not statement.in_transaction_block and not statement.in_do_block


def _transactional(statement: Statement, context: Context) -> bool:
    node = statement.node
    return not isinstance(node, _NEUTRAL) and no_transaction_block(node, context.pg_version) is None


def _outside_blocks(context: Context) -> list[Statement]:
    """The migration's top-level statements outside transaction blocks, in order
    (transaction ids are consecutive from 1: gather them until one has none)."""
    assert context.history is not None
    found: list[Statement] = []
    transaction = 1
    while statements := context.history.all(("transaction", transaction)):
        found.extend(s for s in statements if _loose(s))
        transaction += 1
    return found
