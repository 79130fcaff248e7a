"""ADL106: a BEGIN that never commits, or a BEGIN inside an open transaction."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import TransactionStmtKind

from agentddl.checks.lint.later import nearest
from agentddl.checks.lint.types import Context, Rule, Statement, Violation

_OPENS = (TransactionStmtKind.TRANS_STMT_BEGIN, TransactionStmtKind.TRANS_STMT_START)
_ENDS = (
    TransactionStmtKind.TRANS_STMT_COMMIT,
    TransactionStmtKind.TRANS_STMT_ROLLBACK,
    TransactionStmtKind.TRANS_STMT_PREPARE,
)


class UnbalancedTransaction(Rule):
    """
    ## What it does
    Flags a `BEGIN` (or `START TRANSACTION`) that no `COMMIT`, `END`, `ROLLBACK` or
    `PREPARE TRANSACTION` closes before the end of the file (an **error**, with
    `--runner psql`: Alembic commits its own transactions, and a revision whose offline
    rendering stopped half-way is unreadable-revision's), and a `BEGIN` while a
    transaction is already open (a **warning**). `COMMIT AND CHAIN`
    keeps a transaction open; savepoints are not transactions and are not counted;
    statements inside `DO` blocks are not read. A file with no `BEGIN` is not judged
    here: whether its runner wraps it in a transaction is the runner's business
    (`--runner`, goose's and dbmate's markers).

    ## Why is this bad?
    A transaction still open when psql reaches the end of the script is rolled back
    when the session ends: every change since `BEGIN` is silently discarded, and psql
    still exits with status 0, so the deploy reports success. A nested `BEGIN` is only
    a warning in PostgreSQL ("there is already a transaction in progress"): the first
    `COMMIT` ends the outer transaction, so the statements after it run one by one in
    autocommit, and the migration the author thought atomic can fail half-applied.

    ## Example
    ```sql
    BEGIN;
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    BEGIN;
    CREATE TABLE agent.run_tags (run_id bigint, tag text);
    COMMIT;
    ALTER TABLE agent.runs ADD COLUMN span_id text;
    ```

    ## Use instead
    ```sql
    BEGIN;
    ALTER TABLE agent.runs ADD COLUMN trace_id text;
    CREATE TABLE agent.run_tags (run_id bigint, tag text);
    ALTER TABLE agent.runs ADD COLUMN span_id text;
    COMMIT;
    ```

    ## In an Alembic migration
    Alembic opens and commits each revision's transaction itself: do not
    `op.execute("BEGIN")` or `op.execute("COMMIT")`; to run a statement outside the
    transaction use `with op.get_context().autocommit_block():`.

    ## References
    - https://www.postgresql.org/docs/current/sql-begin.html
    - https://www.postgresql.org/docs/current/app-psql.html
    """

    code = "ADL106"
    name = "unbalanced-transaction"
    severity = "error"
    node_types = (ast.TransactionStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if statement.in_do_block or not isinstance(node, ast.TransactionStmt) or node.kind not in _OPENS:
            return
        if _open_before(statement, context):
            yield Violation(
                message="A transaction is already open: PostgreSQL ignores this BEGIN, and the"
                " first COMMIT ends the outer transaction, so what follows it runs in autocommit.",
                fix="Remove the inner BEGIN (and its COMMIT), or COMMIT before it.",
                severity="warning",
            )
        elif context.runner == "psql" and not _closed_after(statement, context):
            yield Violation(
                message="No COMMIT closes this transaction: at the end of the file the session"
                " ends and the server rolls back every change since BEGIN, while psql still"
                " reports success.",
                fix="End the transaction with COMMIT; (or remove the BEGIN).",
            )


def _is_open_after(node: ast.TransactionStmt) -> bool:
    """Whether a transaction is open right after this statement."""
    if node.kind in _OPENS:
        return True
    return node.kind in _ENDS and bool(node.chain)


def _open_before(statement: Statement, context: Context) -> bool:
    previous = statement
    while True:
        found = nearest(previous, context, ast.TransactionStmt, after=False)
        if found is None:
            return False
        if found.node.kind in (*_OPENS, *_ENDS):
            return _is_open_after(found.node)
        previous = found  # a savepoint: look further back


def _closed_after(statement: Statement, context: Context) -> bool:
    if context.history is None:
        return True  # nothing is known of what follows: stay quiet
    following = statement
    while True:
        found = nearest(following, context, ast.TransactionStmt, after=True)
        if found is None:
            return False
        if found.node.kind in _ENDS:
            return True
        following = found  # a savepoint, or a nested BEGIN (flagged there)
