"""Every profile key that can change, as (old, new) profile pairs: the matrix the revision
tests run (unit: the rendered revision; integration: on real PostgreSQL)."""

from __future__ import annotations

import itertools
from typing import Any

from profiles import example_profiles

from agentddl.generator.profile import LockStrategy, Profile

DEFAULT = example_profiles()["default"]


def changed(profile: Profile, **settings: Any) -> Profile:
    """`profile` with dotted settings changed: changed(p, **{"tenancy.column": None})."""
    data = profile.model_dump(mode="json", by_alias=True)
    for dotted, value in settings.items():
        *sections, key = dotted.split(".")
        target = data
        for section in sections:
            target = target[section]
        target[key] = value
    return Profile.model_validate(data)


def on_engine(major: int) -> Profile:
    return changed(DEFAULT, **{"engine.version": major})


def key_changes(major: int) -> dict[str, tuple[Profile, Profile]]:
    """One change per profile key (or tier), from the default profile on `major`."""
    base = on_engine(major)
    cases = {
        "rls_on": changed(base, **{"tenancy.row_level_security": True}),
        "tenant_delete_restrict": changed(base, **{"tenancy.on_tenant_delete": "restrict"}),
        "retention_shorter": changed(base, **{"retention.events": "7d", "retention.checkpoints": "3d"}),
        "retention_longer": changed(base, **{"retention.events": "90d", "retention.checkpoints": "60d"}),
        "runway": changed(base, **{"retention.runway": 8}),
        "volume_tier_down": changed(base, **{"volume.steps_per_second": 2}),  # day -> week, BRIN -> B-tree
        "payload_limits": changed(
            base,
            **{"payload.inline_limit": "32kB", "payload.event_limit": "4kB", "payload.outbox_limit": "128kB"},
        ),
        "compression": changed(base, **{"payload.compression": "pglz"}),
        "lease": changed(base, **{"lease.duration": "5m", "lease.max_attempts": 9}),
        "roles_renamed": changed(base, **{"roles.app": "agent_workers", "roles.owner": "agent_admin"}),
        "scheduler_and_name": changed(base, **{"retention.scheduler": "pg_cron", "name": "renamed"}),
    }
    found = {name: (base, new) for name, new in cases.items()}
    found["rls_off"] = (cases["rls_on"], base)
    found["roles_renamed_with_rls"] = (
        cases["rls_on"],
        changed(cases["rls_on"], **{"roles.app": "agent_workers", "roles.readonly": "agent_reader"}),
    )
    found["volume_tier_up"] = (cases["volume_tier_down"], base)
    # the model's parts switched on: new tables and nullable columns (the downgrade drops them)
    parts_off = {f"model.{part}": False for part in ("nodes", "approvals", "sessions", "notes", "details")}
    found["model_parts_on"] = (changed(base, **parts_off), base)
    if major > 14:
        found["engine_upgrade"] = (on_engine(14 if major < 17 else 16), base)
    return found


def strategy_pairs(major: int) -> dict[str, tuple[Profile, Profile]]:
    """Every ordered pair of lock strategies."""
    base = on_engine(major)
    return {
        f"{a.value}_to_{b.value}": (
            changed(base, lock_strategy=a.value),
            changed(base, lock_strategy=b.value),
        )
        for a, b in itertools.permutations(LockStrategy, 2)
    }


def refused_changes() -> dict[str, tuple[Profile, Profile, str]]:
    """Changes with no online form: (old, new, the key the refusal names)."""
    single = changed(DEFAULT, **{"tenancy.column": None})
    return {
        "tenancy_added": (single, DEFAULT, "tenancy.column"),
        "tenancy_removed": (DEFAULT, single, "tenancy.column"),
        "tenant_renamed": (DEFAULT, changed(DEFAULT, **{"tenancy.column": "org_id"}), "tenancy.column"),
        "tenant_type": (DEFAULT, changed(DEFAULT, **{"tenancy.type": "bigint"}), "tenancy.type"),
        "schema_renamed": (DEFAULT, changed(DEFAULT, schema="agents"), "schema"),
        "partition_manager": (
            DEFAULT,
            changed(DEFAULT, **{"retention.partition_manager": "pg_partman"}),
            "retention.partition_manager",
        ),
        "roles_swapped": (
            DEFAULT,
            changed(DEFAULT, **{"roles.app": "agent_relay", "roles.relay": "agent_app"}),
            "roles.app",
        ),
    }
