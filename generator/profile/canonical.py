"""A profile as canonical text (what a revision records), its hash, and the keys that
differ between two profiles.

The canonical text is JSON (so also YAML: `load_profile_text` reads it back) with every
key spelled out, defaults included, one top-level section per line and keys sorted: two
profiles that mean the same thing give the same bytes, whatever the YAML looked like.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agentddl.generator.profile.model import Profile


def canonical_text(profile: Profile) -> str:
    data = profile.model_dump(mode="json", by_alias=True)
    lines = [f"  {json.dumps(key)}: {json.dumps(data[key], sort_keys=True)}" for key in sorted(data)]
    return "{\n" + ",\n".join(lines) + "\n}"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def flat(profile: Profile) -> dict[str, Any]:
    """Every setting by its dotted key as a user writes it (`tenancy.column`), defaults
    included; durations and sizes in the profile's own spelling (`30d`, `64kB`)."""
    result: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key in sorted(value):
                walk(f"{prefix}.{key}" if prefix else key, value[key])
        else:
            result[prefix] = value

    walk("", profile.model_dump(mode="json", by_alias=True))
    return result


def changed_keys(old: Profile, new: Profile) -> dict[str, tuple[Any, Any]]:
    """Dotted key -> (old value, new value) for every setting that differs."""
    before, after = flat(old), flat(new)
    return {key: (before[key], after[key]) for key in before if before[key] != after[key]}


def describe_change(key: str, values: tuple[Any, Any]) -> str:
    """`tenancy.row_level_security: false -> true`."""
    old, new = (json.dumps(v) if not isinstance(v, str) else v for v in values)
    return f"{key}: {old} -> {new}"
