"""PostgreSQL's table-level lock modes and their conflict matrix: the one lock model that
lint (which lock will a statement take?) and trace (which lock did it take, whom did it
block?) share.

The conflict table is the one in "Explicit Locking" (docs, section 13.3.1). pg_locks
names modes `AccessExclusiveLock`, ...; `LockMode.from_pg_locks` reads those names.
The runtime's queries take: reads ACCESS SHARE (SELECT), step writes ROW EXCLUSIVE
(INSERT/UPDATE of one run's rows), claims ROW SHARE (SELECT ... FOR UPDATE SKIP LOCKED)
and ROW EXCLUSIVE (the UPDATE/INSERT that follows).
"""

from __future__ import annotations

import functools
from enum import IntEnum


class LockMode(IntEnum):
    """Table-level lock modes, weakest first; `mode >= LockMode.SHARE` blocks writers."""

    ACCESS_SHARE = 1
    ROW_SHARE = 2
    ROW_EXCLUSIVE = 3
    SHARE_UPDATE_EXCLUSIVE = 4
    SHARE = 5
    SHARE_ROW_EXCLUSIVE = 6
    EXCLUSIVE = 7
    ACCESS_EXCLUSIVE = 8

    def __str__(self) -> str:
        return self.name.replace("_", " ")

    @property
    def pg_locks_name(self) -> str:
        """The mode as pg_locks names it, e.g. AccessExclusiveLock."""
        return "".join(word.capitalize() for word in self.name.split("_")) + "Lock"

    @classmethod
    def from_pg_locks(cls, name: str) -> LockMode | None:
        """The table lock mode pg_locks calls `name`; None for a mode that is not one."""
        return _BY_PG_NAME.get(name)

    def conflicts_with(self, other: LockMode) -> bool:
        """Whether a lock of this mode held by one session makes another wait for `other`."""
        return other in _CONFLICTS[self]

    def blocks_writes(self) -> bool:
        """True from SHARE up: INSERT/UPDATE/DELETE (ROW EXCLUSIVE) wait for it."""
        return self.conflicts_with(LockMode.ROW_EXCLUSIVE)

    def blocks_reads(self) -> bool:
        """Only ACCESS EXCLUSIVE blocks plain SELECT."""
        return self.conflicts_with(LockMode.ACCESS_SHARE)


_M = LockMode
_CONFLICTS: dict[LockMode, frozenset[LockMode]] = {
    _M.ACCESS_SHARE: frozenset({_M.ACCESS_EXCLUSIVE}),
    _M.ROW_SHARE: frozenset({_M.EXCLUSIVE, _M.ACCESS_EXCLUSIVE}),
    _M.ROW_EXCLUSIVE: frozenset({_M.SHARE, _M.SHARE_ROW_EXCLUSIVE, _M.EXCLUSIVE, _M.ACCESS_EXCLUSIVE}),
    _M.SHARE_UPDATE_EXCLUSIVE: frozenset(
        {_M.SHARE_UPDATE_EXCLUSIVE, _M.SHARE, _M.SHARE_ROW_EXCLUSIVE, _M.EXCLUSIVE, _M.ACCESS_EXCLUSIVE}
    ),
    _M.SHARE: frozenset(set(_M) - {_M.ACCESS_SHARE, _M.ROW_SHARE, _M.SHARE}),
    _M.SHARE_ROW_EXCLUSIVE: frozenset(set(_M) - {_M.ACCESS_SHARE, _M.ROW_SHARE}),
    _M.EXCLUSIVE: frozenset(set(_M) - {_M.ACCESS_SHARE}),
    _M.ACCESS_EXCLUSIVE: frozenset(_M),
}
_BY_PG_NAME = {mode.pg_locks_name: mode for mode in LockMode}

# pg_locks mode names, weakest first (what trace reads from the server).
STRENGTH = tuple(mode.pg_locks_name for mode in LockMode)
ACCESS_SHARE, ROW_SHARE, ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE = STRENGTH[:4]
SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE = STRENGTH[4:]

# What each kind of runtime query needs on a table (all of them must be granted).
RUNTIME_NEEDS: dict[str, tuple[str, ...]] = {
    "reads": (ACCESS_SHARE,),
    "writes": (ROW_EXCLUSIVE,),
    "claims": (ROW_SHARE, ROW_EXCLUSIVE),
}


def conflicts(held: str, wanted: str) -> bool:
    """Whether a lock `held` (pg_locks name) by one session makes another wait for `wanted`."""
    held_mode, wanted_mode = LockMode.from_pg_locks(held), LockMode.from_pg_locks(wanted)
    return held_mode is not None and wanted_mode is not None and held_mode.conflicts_with(wanted_mode)


@functools.cache  # called for every lock of every statement: thousands in a long transaction
def blocked_kinds(mode: str) -> tuple[str, ...]:
    """The runtime query kinds (reads, writes, claims) a held lock of `mode` blocks."""
    return tuple(kind for kind, needs in RUNTIME_NEEDS.items() if any(conflicts(mode, n) for n in needs))


def strength(mode: str) -> int:
    """1 (AccessShareLock) .. 8 (AccessExclusiveLock); 0 for a mode that is not a table lock."""
    found = LockMode.from_pg_locks(mode)
    return int(found) if found is not None else 0


def strongest(modes: list[str]) -> str | None:
    return max(modes, key=strength) if modes else None
