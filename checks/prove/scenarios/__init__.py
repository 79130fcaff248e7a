"""The ten scenarios, in the order prove runs them; one module each, with the
coordinator's `run(ctx)` and the workers' `work_<action>` functions side by side."""

from __future__ import annotations

SCENARIOS = (
    "claim_race",
    "crash_mid_step",
    "stale_writer",
    "forged_lease",
    "idempotency",
    "outbox",
    "poison_message",
    "tenant_isolation",
    "version_races",
    "approval_once",
)

# With hot_state.store: redis, after the others: the hot projection's guarantees in Redis.
HOT_SCENARIOS = (
    "hot_stale_writer",
    "hot_expiry",
    "hot_flush",
    "hot_tenant_read",
)
