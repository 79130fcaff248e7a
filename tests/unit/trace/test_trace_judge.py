"""Findings come from what was observed, and only about relations that existed before."""

from __future__ import annotations

from agentddl.checks.pg.lockmodes import blocked_kinds
from agentddl.checks.trace.judge import judge
from agentddl.checks.trace.observed import Limits
from agentddl.checks.trace.types import HeldLock, StatementTrace

EXISTING = {"public.orders", "public.orders_pkey"}


def trace(**fields: object) -> StatementTrace:
    locks = [HeldLock(r, m, blocked_kinds(m)) for r, m in fields.pop("locks", [])]  # type: ignore[attr-defined]
    return StatementTrace(file="m.sql", line=3, sql="...", in_transaction=False, locks=locks, **fields)  # type: ignore[arg-type]


def names(t: StatementTrace, limits: Limits | None = None) -> list[str]:
    return [f.name for f in judge([t], EXISTING, limits or Limits())]


def test_a_rewrite_of_an_existing_table() -> None:
    t = trace(
        locks=[("public.orders", "AccessExclusiveLock")],
        strongest_lock="AccessExclusiveLock",
        lock_timeout_ms=500,
        rewritten=["public.orders", "public.orders_pkey"],
        scanned=["public.orders"],
        sizes={"public.orders": 8192},
    )
    (finding,) = judge([t], EXISTING, Limits())
    assert (finding.code, finding.severity, finding.object) == ("ADT101", "error", "public.orders")
    assert (finding.file, finding.line, finding.column) == ("m.sql", 3, None)
    assert finding.message.startswith("rewrote public.orders, public.orders_pkey (8192 bytes here)")


def test_a_rewrite_that_locks_no_writer_out_is_no_finding() -> None:
    t = trace(  # REINDEX CONCURRENTLY: a new copy of the index, built under SHARE UPDATE EXCLUSIVE
        locks=[(name, "ShareUpdateExclusiveLock") for name in ("public.orders", "public.orders_pkey")],
        strongest_lock="ShareUpdateExclusiveLock",
        rewritten=["public.orders_pkey"],
        scanned=["public.orders"],
    )
    assert names(t) == []


def test_a_rewrite_whose_locks_were_too_quick_to_see_counts() -> None:
    t = trace(rewritten=["public.orders"], rewritten_tables=["public.orders"])  # VACUUM FULL, small
    assert names(t) == ["table-rewrite"]
    t = trace(rewritten=["public.orders_pkey"])  # only an index: REINDEX CONCURRENTLY, small
    assert names(t) == []


def test_what_the_migration_created_never_counts() -> None:
    t = trace(
        locks=[("public.fresh", "AccessExclusiveLock")],
        strongest_lock=None,
        rewritten=["public.fresh"],
        scanned=["public.fresh"],
        lock_held_ms=5000.0,
    )
    assert names(t) == []


def test_a_validation_scan_under_a_write_blocking_lock_without_lock_timeout() -> None:
    t = trace(
        locks=[("public.orders", "ShareRowExclusiveLock")],
        strongest_lock="ShareRowExclusiveLock",
        scanned=["public.orders"],
        lock_held_ms=20.0,
    )
    assert names(t) == ["scan-under-write-lock", "no-lock-timeout"]


def test_validate_constraint_under_share_update_exclusive_is_fine() -> None:
    t = trace(
        locks=[("public.orders", "ShareUpdateExclusiveLock")],
        strongest_lock="ShareUpdateExclusiveLock",
        scanned=["public.orders"],
        lock_held_ms=5000.0,
    )
    assert names(t) == []


def test_long_write_lock_and_workload_blocked_follow_the_limits() -> None:
    t = trace(
        locks=[("public.orders", "ShareLock")],
        strongest_lock="ShareLock",
        lock_timeout_ms=1000,
        lock_held_ms=700.0,
        blocked_ms=150.0,
    )
    assert names(t) == []
    assert names(t, Limits(max_lock_ms=500, max_blocked_ms=100)) == ["long-write-lock", "workload-blocked"]


def test_locks_taken_by_an_earlier_statement_are_not_this_ones() -> None:
    # BEGIN; ALTER TABLE ... (AccessExclusiveLock); UPDATE ... <- this one only added RowExclusiveLock
    t = trace(
        locks=[("public.orders", "AccessExclusiveLock")],
        strongest_lock="RowExclusiveLock",
        lock_held_ms=5000.0,
    )
    assert names(t) == []


def test_a_failed_statement() -> None:
    t = trace(
        waited_for=[HeldLock("public.orders", "AccessExclusiveLock")],
        error="55P03: canceling statement due to lock timeout",
    )
    (finding,) = judge([t], EXISTING, Limits())
    assert (finding.code, finding.object) == ("ADT106", "public.orders")
