"""The nine scenarios, in the order prove runs them; one module each, with the
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
)
