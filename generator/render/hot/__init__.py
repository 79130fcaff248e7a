"""The Redis side of a profile with `hot_state.store: redis`: the files under redis/.

- `redis/hot_state.py`: the key layout, the Lua scripts and the calls that apply them
  (redis-py); `runtime.py` beside this file with the profile's settings filled in.
- `redis/<script>.lua`: each Lua script on its own, for runtimes in other languages
  (EVALSHA with the KEYS and ARGV its header names).
- `redis/README.md`: the keys, TTLs, scripts and command sequences.

Pure: the same profile always gives the same bytes (the template is read from this
package, nothing else).
"""

from __future__ import annotations

import json
import re
from importlib.resources import files

from agentddl.generator.model import SchemaModel
from agentddl.generator.render.hot import runtime
from agentddl.generator.render.hot.layout import key_prefix
from agentddl.generator.render.hot.readme import render_readme

FOLDER = "redis"
SETTINGS = re.compile(r"# agentddl:settings\n.*?# agentddl:end\n", re.S)


def render_hot_files(model: SchemaModel) -> dict[str, str]:
    """redis/... -> text; nothing when the profile keeps everything in PostgreSQL."""
    if not model.hot_state_in_redis:
        return {}
    found = {f"{FOLDER}/hot_state.py": render_module(model), f"{FOLDER}/README.md": render_readme(model)}
    found |= {f"{FOLDER}/{name}.lua": text for name, text in runtime.SCRIPTS.items()}
    return found


def settings(model: SchemaModel) -> dict[str, object]:
    profile = model.profile
    return {
        "PROFILE": profile.name,
        "KEY_PREFIX": key_prefix(model),
        "RUNNING_TTL": profile.hot_state.running_ttl,
        "TERMINAL_TTL": profile.hot_state.terminal_ttl,
        "LEASE_SECONDS": profile.lease.duration,
        "TENANT_COLUMN": model.tenant,
    }


def render_module(model: SchemaModel) -> str:
    """runtime.py with the profile's settings (names and numbers validated by the profile)."""
    template = files("agentddl.generator.render.hot").joinpath("runtime.py").read_text(encoding="utf-8")
    lines = [f"# rendered from profile {model.profile.name!r}: do not edit, re-generate"]
    for name, value in settings(model).items():
        annotation = ": str | None" if name == "TENANT_COLUMN" else ""
        lines.append(f"{name}{annotation} = {_literal(value)}")
    block = "\n".join(lines) + "\n"
    rendered, count = SETTINGS.subn(lambda _: block, template)
    assert count == 1, "runtime.py lost its settings block"
    return rendered


def _literal(value: object) -> str:
    """A Python literal in the template's style (double quotes)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)
