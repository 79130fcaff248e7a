"""PostgreSQL's table-level lock conflicts, and which runtime queries each lock blocks.

The conflict table is the one in "Explicit Locking" (docs, section 13.3.1), with the
mode names pg_locks uses. The runtime's queries take: reads AccessShareLock (SELECT),
step writes RowExclusiveLock (INSERT/UPDATE of one run's rows), claims RowShareLock
(SELECT ... FOR UPDATE SKIP LOCKED) and RowExclusiveLock (the UPDATE/INSERT that follows).
"""

from __future__ import annotations

import functools

ACCESS_SHARE = "AccessShareLock"
ROW_SHARE = "RowShareLock"
ROW_EXCLUSIVE = "RowExclusiveLock"
SHARE_UPDATE_EXCLUSIVE = "ShareUpdateExclusiveLock"
SHARE = "ShareLock"
SHARE_ROW_EXCLUSIVE = "ShareRowExclusiveLock"
EXCLUSIVE = "ExclusiveLock"
ACCESS_EXCLUSIVE = "AccessExclusiveLock"

STRENGTH = (
    ACCESS_SHARE,
    ROW_SHARE,
    ROW_EXCLUSIVE,
    SHARE_UPDATE_EXCLUSIVE,
    SHARE,
    SHARE_ROW_EXCLUSIVE,
    EXCLUSIVE,
    ACCESS_EXCLUSIVE,
)

CONFLICTS: dict[str, frozenset[str]] = {
    ACCESS_SHARE: frozenset({ACCESS_EXCLUSIVE}),
    ROW_SHARE: frozenset({EXCLUSIVE, ACCESS_EXCLUSIVE}),
    ROW_EXCLUSIVE: frozenset({SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}),
    SHARE_UPDATE_EXCLUSIVE: frozenset(
        {SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    SHARE: frozenset(
        {ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    SHARE_ROW_EXCLUSIVE: frozenset(
        {ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    EXCLUSIVE: frozenset(STRENGTH[1:]),
    ACCESS_EXCLUSIVE: frozenset(STRENGTH),
}

# What each kind of runtime query needs on a table (all of them must be granted).
RUNTIME_NEEDS: dict[str, tuple[str, ...]] = {
    "reads": (ACCESS_SHARE,),
    "writes": (ROW_EXCLUSIVE,),
    "claims": (ROW_SHARE, ROW_EXCLUSIVE),
}


def conflicts(held: str, wanted: str) -> bool:
    """Whether a lock `held` by one session makes another wait for `wanted`."""
    return wanted in CONFLICTS.get(held, frozenset())


@functools.cache  # called for every lock of every statement: thousands in a long transaction
def blocked_kinds(mode: str) -> tuple[str, ...]:
    """The runtime query kinds (reads, writes, claims) a held lock of `mode` blocks."""
    return tuple(kind for kind, needs in RUNTIME_NEEDS.items() if any(conflicts(mode, n) for n in needs))


def strength(mode: str) -> int:
    """1 (AccessShareLock) .. 8 (AccessExclusiveLock); 0 for a mode that is not a table lock."""
    return STRENGTH.index(mode) + 1 if mode in STRENGTH else 0


def strongest(modes: list[str]) -> str | None:
    return max(modes, key=strength) if modes else None
