"""Small Markdown and wording helpers for PLAN.md: tables, code spans, human units."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_UNITS = ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second"))
_SIZES = ((1024**3, "GB"), (1024**2, "MB"), (1024, "kB"))


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table; pipes inside cells are escaped."""
    lines = [_row(header), _row(["---"] * len(header))]
    lines += [_row(row) for row in rows]
    return "\n".join(lines)


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def code(text: str) -> str:
    """An inline code span; text containing a backtick gets a double-backtick fence."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def codes(items: Iterable[str]) -> str:
    return ", ".join(code(item) for item in items)


def duration(seconds: int) -> str:
    """'30 days', '1 hour', '90 seconds': the largest unit that divides exactly."""
    for size, unit in _UNITS:
        if seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}" if count == 1 else f"{count} {unit}s"
    raise AssertionError("unreachable: 1 second divides everything")


def every(seconds: int) -> str:
    """'every hour', 'every 5 minutes'."""
    text = duration(seconds)
    return f"every {text[2:]}" if text.startswith("1 ") else f"every {text}"


def interval(seconds: int) -> str:
    """A PostgreSQL interval literal for a duration."""
    return f"interval '{duration(seconds)}'"


def size(count: int) -> str:
    for unit_size, unit in _SIZES:
        if count % unit_size == 0:
            return f"{count // unit_size} {unit}"
    return f"{count} bytes"


def approx_size(count: int) -> str:
    """A rounded byte count for prose: '~5.2 TB' (binary units)."""
    value, unit = float(count), "bytes"
    for next_unit in ("kB", "MB", "GB", "TB", "PB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    return f"~{value:.1f} {unit}" if unit != "bytes" else f"{count} bytes"


def approx_time(seconds: float) -> str:
    """'about 12 minutes' / 'about 2.5 hours' for estimates."""
    if seconds < 3600:
        return f"about {max(1, round(seconds / 60))} minutes"
    return f"about {seconds / 3600:.1f} hours"


def number(value: int) -> str:
    return f"{value:,}"


def bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def numbered(items: Iterable[str]) -> str:
    return "\n".join(f"{n}. {item}" for n, item in enumerate(items, start=1))


def sql_block(sql: str) -> str:
    return f"```sql\n{sql.strip()}\n```"
