"""Durations ("30d", "60s") and byte sizes ("64kB") as they appear in a profile."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

_DURATION = re.compile(r"^(\d+)(s|m|h|d)$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SIZE = re.compile(r"^(\d+)(B|kB|MB|GB)$")
_BYTES = {"B": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3}


def parse_duration(value: object) -> int:
    """Seconds from '30d' / '12h' / '15m' / '60s'; the only accepted spelling."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"expected a duration like 30d, 12h, 15m or 60s, got {value!r}")
    return int(match.group(1)) * _SECONDS[match.group(2)]


def format_duration(seconds: int) -> str:
    for unit in ("d", "h", "m"):
        if seconds % _SECONDS[unit] == 0:
            return f"{seconds // _SECONDS[unit]}{unit}"
    return f"{seconds}s"


def parse_size(value: object) -> int:
    """Bytes from '64kB' / '1MB' or a plain integer."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"expected a size like 64kB, 1MB or a byte count, got {value!r}")
    return int(match.group(1)) * _BYTES[match.group(2)]


def format_size(size: int) -> str:
    for unit in ("GB", "MB", "kB"):
        if size % _BYTES[unit] == 0:
            return f"{size // _BYTES[unit]}{unit}"
    return f"{size}B"


Duration = Annotated[
    int,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema({"type": "string", "pattern": _DURATION.pattern, "examples": ["30d", "60s"]}),
]
ByteSize = Annotated[
    int,
    BeforeValidator(parse_size),
    PlainSerializer(format_size, return_type=str),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": _SIZE.pattern},
                {"type": "integer", "minimum": 1},
            ],
            "examples": ["64kB"],
        }
    ),
]
