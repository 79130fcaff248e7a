"""What a migration does after a statement.

Lint walks a whole migration before any rule runs, so the walker's History already
holds the statements that follow the one being checked. A rule that judges a statement
by what comes after it (a later step that may fail, a COMMIT that never comes) asks
here. A hand-built Context has no History: nothing is known to follow, and such rules
stay quiet.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from agentddl.checks.lint.types import Context, Statement


def runs_after_commit(statement: Statement, context: Context) -> bool:
    """True when some statement of the migration runs after `statement`'s transaction has
    committed (transaction ids are consecutive: the next one exists)."""
    if context.history is None:
        return False
    return bool(context.history.all(("transaction", statement.transaction + 1)))


def context_of(statement: Statement, context: Context) -> Context:
    """The Context in force before a later `statement` of the same migration."""
    assert context.history is not None
    return context.history.context_of(statement)


def nearest(statement: Statement, context: Context, kind: type, *, after: bool) -> Statement | None:
    """The top-level statement of `kind` nearest after (or before) `statement`; found by
    bisection, so asking at every statement stays linear on big files."""
    if context.history is None:
        return None
    items = context.history.all(kind)
    if after:
        start = bisect.bisect_right(items, statement.index, key=lambda s: s.index)
        return next((items[i] for i in range(start, len(items)) if not items[i].in_do_block), None)
    end = bisect.bisect_left(items, statement.index, key=lambda s: s.index)
    return next((items[i] for i in range(end - 1, -1, -1) if not items[i].in_do_block), None)


def built(context: Context, name: str, build: Callable[[], list[Statement]]) -> list[Statement]:
    """A list of the migration's statements, built once per migration by `build` (in
    order) and kept under `name`; empty for a hand-built Context (no History)."""
    if context.history is None:
        return []
    memo = context.history.memo
    if ("later", name) not in memo:
        memo[("later", name)] = build()
    items: list[Statement] = memo[("later", name)]
    return items


def first_after(
    statement: Statement, context: Context, name: str, build: Callable[[], list[Statement]]
) -> Statement | None:
    """The first statement after `statement` in the list `built` keeps under `name`: a
    bisection per call, not a scan."""
    items = built(context, name, build)
    start = bisect.bisect_right(items, statement.index, key=lambda s: s.index)
    return items[start] if start < len(items) else None
