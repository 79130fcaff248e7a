"""Reading the run-time settings a migration changes: lock_timeout, statement_timeout,
search_path, TimeZone, via SET / SET LOCAL / RESET / set_config()."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pglast import ast, enums

from agentddl.checks.pg.ast_helpers import const_value, function_name, iter_nodes

TRACKED = ("lock_timeout", "statement_timeout", "search_path", "timezone")
# timezone None: the server's setting (unknown to a static linter).
DEFAULTS: dict[str, Any] = {
    "lock_timeout": 0,
    "statement_timeout": 0,
    "search_path": ("public",),
    "timezone": None,
}

_UNITS_MS = {"us": 0.001, "ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([a-z]*)\s*$")


@dataclass(frozen=True)
class SettingChange:
    """One change: `value` None means back to the default (RESET, SET ... TO DEFAULT)."""

    name: str  # a TRACKED name, or "all" for RESET ALL
    value: Any
    is_local: bool


def duration_ms(value: Any) -> int | None:
    """A timeout setting in milliseconds (`'2s'` -> 2000, `500` -> 500); None if invalid."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value)
    match = _DURATION.match(str(value).lower())
    if not match or match.group(2) not in (*_UNITS_MS, ""):
        return None
    return int(float(match.group(1)) * _UNITS_MS.get(match.group(2), 1))


def search_path_list(text: str) -> tuple[str, ...]:
    """`'agent, "Weird", public'` -> ('agent', 'Weird', 'public'): unquoted names fold."""
    names = []
    for part in re.findall(r'"(?:[^"]|"")*"|[^,\s]+', text):
        if part.startswith('"'):
            names.append(part[1:-1].replace('""', '"'))
        else:
            names.append(part.lower())
    return tuple(names)


def changes(node: Any) -> list[SettingChange]:
    """The tracked settings a statement changes (SET, RESET, SELECT set_config(...))."""
    if isinstance(node, ast.VariableSetStmt):
        change = _variable_set(node)
        return [change] if change else []
    if isinstance(node, ast.SelectStmt):
        return [c for c in map(_set_config, iter_nodes(node.targetList)) if c]
    return []


def _variable_set(node: ast.VariableSetStmt) -> SettingChange | None:
    kind = node.kind
    if kind == enums.VariableSetKind.VAR_RESET_ALL:
        return SettingChange("all", None, False)
    if node.name not in TRACKED:
        return None
    if kind in (enums.VariableSetKind.VAR_RESET, enums.VariableSetKind.VAR_SET_DEFAULT):
        return SettingChange(node.name, None, bool(node.is_local))
    if kind != enums.VariableSetKind.VAR_SET_VALUE:
        return None
    values = [const_value(arg) for arg in node.args or ()]
    if node.name == "timezone":  # SET TIME ZONE 'UTC' / 0 / INTERVAL '+00:00' ...
        zone = str(values[0]).lower() if values and values[0] is not None else None
        return SettingChange(node.name, zone, bool(node.is_local))
    if node.name == "search_path":
        # SET quotes each argument as one schema name: SET search_path = 'a,b' is "a,b".
        value: Any = tuple(str(v) for v in values if v is not None)
    else:
        value = duration_ms(values[0]) if len(values) == 1 else None
        if value is None:
            return None  # the server rejects it: nothing changes
    return SettingChange(node.name, value, bool(node.is_local))


def _set_config(node: Any) -> SettingChange | None:
    if not isinstance(node, ast.FuncCall) or function_name(node) != "set_config":
        return None
    args = [const_value(arg) for arg in node.args or ()]
    if len(args) != 3 or args[0] not in TRACKED or not isinstance(args[1], str):
        return None
    name, text, is_local = str(args[0]), args[1], args[2]
    if not isinstance(is_local, bool):
        return None
    if name == "search_path":
        return SettingChange(name, search_path_list(text), is_local)
    if name == "timezone":
        return SettingChange(name, text.lower(), is_local)
    value = duration_ms(text)
    return None if value is None else SettingChange(name, value, is_local)
