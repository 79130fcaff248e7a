"""The lock conflict table is PostgreSQL's (docs, "Explicit Locking", table 13.2), and
the runtime query kinds each held lock blocks follow from it."""

from __future__ import annotations

import pytest

from agentddl.checks.pg.lockmodes import STRENGTH, blocked_kinds, conflicts, strongest

# Table 13.2 "Conflicting Lock Modes", row by row: the requested mode conflicts with these.
DOCUMENTED = {
    "AccessShareLock": {"AccessExclusiveLock"},
    "RowShareLock": {"ExclusiveLock", "AccessExclusiveLock"},
    "RowExclusiveLock": {"ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"},
    "ShareUpdateExclusiveLock": {
        "ShareUpdateExclusiveLock",
        "ShareLock",
        "ShareRowExclusiveLock",
        "ExclusiveLock",
        "AccessExclusiveLock",
    },
    "ShareLock": {
        "RowExclusiveLock",
        "ShareUpdateExclusiveLock",
        "ShareRowExclusiveLock",
        "ExclusiveLock",
        "AccessExclusiveLock",
    },
    "ShareRowExclusiveLock": {
        "RowExclusiveLock",
        "ShareUpdateExclusiveLock",
        "ShareLock",
        "ShareRowExclusiveLock",
        "ExclusiveLock",
        "AccessExclusiveLock",
    },
    "ExclusiveLock": set(STRENGTH) - {"AccessShareLock"},
    "AccessExclusiveLock": set(STRENGTH),
}


@pytest.mark.parametrize("requested", STRENGTH)
def test_conflicts_are_the_documented_table(requested: str) -> None:
    assert {held for held in STRENGTH if conflicts(held, requested)} == DOCUMENTED[requested]


def test_conflicts_are_symmetric() -> None:
    assert all(conflicts(a, b) == conflicts(b, a) for a in STRENGTH for b in STRENGTH)


@pytest.mark.parametrize(
    ("held", "kinds"),
    [
        ("AccessShareLock", ()),
        ("ShareUpdateExclusiveLock", ()),  # CONCURRENTLY, VALIDATE: the runtime goes on
        ("ShareLock", ("writes", "claims")),  # CREATE INDEX: reads go on
        ("ShareRowExclusiveLock", ("writes", "claims")),  # ADD FOREIGN KEY
        ("ExclusiveLock", ("writes", "claims")),  # REFRESH MATERIALIZED VIEW CONCURRENTLY
        ("AccessExclusiveLock", ("reads", "writes", "claims")),
    ],
)
def test_which_runtime_queries_a_lock_blocks(held: str, kinds: tuple[str, ...]) -> None:
    assert blocked_kinds(held) == kinds


def test_strongest() -> None:
    assert strongest(["RowShareLock", "AccessExclusiveLock", "ShareLock"]) == "AccessExclusiveLock"
    assert strongest([]) is None
