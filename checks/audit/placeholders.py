"""Statement placeholders: psycopg's %(name)s, PostgreSQL's $n, and the way between.

Paths keep psycopg-style SQL (what the client cursor binds, values visible to the
planner as a custom plan sees them); the parser (pglast) and EXPLAIN (GENERIC_PLAN)
read $n. A % of the SQL itself is %% in psycopg style.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%")


def numbered(statement: str) -> str:
    """%(name)s placeholders as $1, $2, ... (one number per distinct name); an escaped
    %% is the SQL's own %."""
    names: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        return f"${names.setdefault(match.group(1), len(names) + 1)}"

    return _PLACEHOLDER.sub(number, statement)


def placeholder_names(statement: str) -> tuple[str, ...]:
    """The %(name)s parameters in order of first use (the numbers numbered() gives)."""
    return tuple(dict.fromkeys(m.group(1) for m in _PLACEHOLDER.finditer(statement) if m.group(1)))


def named(statement: str, names: tuple[str, ...]) -> str:
    """The inverse of numbered(): $n as %(names[n-1])s, a % of the SQL as %%."""
    escaped = statement.replace("%", "%%")
    return re.sub(r"\$(\d+)\b", lambda m: f"%({names[int(m.group(1)) - 1]})s", escaped)


def psycopg_style(statement: str) -> str:
    """A driver's SQL with %(name)s placeholders and a lone % of the SQL (LIKE 'a%')
    escaped, as the psycopg client cursor the audit plans with expects."""
    return re.sub(r"%(?!\(\w+\)s)", "%%", statement)
