"""ADL108: waiting for a lock on one table while holding ACCESS EXCLUSIVE on another."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.locks import LOCKING_STATEMENTS, exclusive_holders, waits_for_writers_lock


class ChainedLocks(Rule):
    """
    ## What it does
    Flags a statement that must wait for a SHARE or stronger lock on one existing
    relation while an earlier statement of the same transaction holds ACCESS EXCLUSIVE
    on another existing relation, with no `lock_timeout` in force: `ALTER TABLE a ADD
    COLUMN ...` then, before `COMMIT`, `ALTER TABLE a ADD CONSTRAINT ... REFERENCES b`,
    `CREATE INDEX ON b` or `ALTER TABLE b ...`. Locks the transaction already holds,
    relations created in this migration, `LOCK ... NOWAIT` and statements outside a
    transaction block (each commits and releases its locks) are not flagged, nor waits
    under a `lock_timeout`: the wait then fails after the timeout and the rollback frees
    the first table. A **warning**.

    ## Why is this bad?
    An ACCESS EXCLUSIVE lock blocks every query on `a` until the transaction ends. The
    next statement then queues for `b`'s lock behind whatever long transaction holds
    `b`, and all that time every reader and writer of `a` waits too: one busy table
    turns into an outage of both. Two migrations (or a migration and the
    application) that take the same two tables in the opposite order deadlock.

    ## Example
    ```sql
    BEGIN;
    ALTER TABLE agent.runs ADD COLUMN owner_id bigint;
    ALTER TABLE agent.runs ADD CONSTRAINT runs_owner_fk
        FOREIGN KEY (owner_id) REFERENCES agent.owners (id) NOT VALID;
    COMMIT;
    ```

    ## Use instead
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE agent.runs ADD COLUMN owner_id bigint;  -- commits: runs is free again
    ALTER TABLE agent.runs ADD CONSTRAINT runs_owner_fk
        FOREIGN KEY (owner_id) REFERENCES agent.owners (id) NOT VALID;
    ```
    Or take the locks in one statement up front, in a fixed order, with a short
    `lock_timeout`: `LOCK TABLE agent.owners, agent.runs IN ACCESS EXCLUSIVE MODE;`.

    ## In an Alembic migration
    Split the work into two revisions (each is its own transaction), or commit between
    the steps with `with op.get_context().autocommit_block():` around the second.

    ## References
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-DEADLOCKS
    """

    code = "ADL108"
    name = "chained-locks"
    severity = "warning"
    node_types = LOCKING_STATEMENTS

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not statement.in_transaction_block or (isinstance(node, ast.LockStmt) and node.nowait):
            return
        if context.lock_timeout_ms > 0:
            return  # each wait is bounded: it fails, and the rollback frees the first table
        holders = exclusive_holders(statement, context)
        if not holders:
            return
        # A relation the transaction holds ACCESS EXCLUSIVE on is never waited for again.
        waits = waits_for_writers_lock(statement, context)
        if not waits:
            return
        relation, mode = max(waits, key=lambda lock: lock[1])
        (holding, _), since = holders[0]
        yield Violation(
            message=f"This waits for the {mode} lock on {relation} while the transaction holds"
            f" ACCESS EXCLUSIVE on {holding} (line {since.line}): every query on {holding} waits"
            f" as long as {relation}'s lock does.",
            fix=_fix(context),
        )


def _fix(context: Context) -> str:
    if context.runner == "alembic":
        return "Set a short lock_timeout (SET LOCAL lock_timeout = '2s'), or move this step to a revision"
    return "Set a short lock_timeout first, or COMMIT before this statement."
