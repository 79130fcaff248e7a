"""Up/down markers of SQL migration tools that keep both directions in one file:
goose (`-- +goose Up` / `Down`), dbmate (`-- migrate:up` / `down`) and sql-migrate
(`-- +migrate Up` / `Down`). Only the up section runs on deploy, so the down sections
are blanked (offsets kept). These tools run the up section in one transaction unless
the file opts out (`-- +goose NO TRANSACTION`, `-- migrate:up transaction:false`,
`-- +migrate Up notransaction`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKER = re.compile(
    r"^[ \t]*--[ \t]*(?:\+goose[ \t]+(up|down)|migrate:(up|down)|\+migrate[ \t]+(up|down))\b([^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
_GOOSE_NO_TRANSACTION = re.compile(
    r"^[ \t]*--[ \t]*\+goose[ \t]+NO[ \t]+TRANSACTION\b", re.IGNORECASE | re.MULTILINE
)
_OPT_OUT = re.compile(r"transaction:false|notransaction", re.IGNORECASE)


@dataclass(frozen=True)
class UpSection:
    """The text the tool runs on deploy, and whether it wraps it in a transaction."""

    text: str
    in_transaction: bool
    opted_out: bool = False  # the file has the tool's markers and its opt-out one


def up_section(text: str) -> UpSection:
    """`text` with down sections blanked; in_transaction is False without markers."""
    markers = list(_MARKER.finditer(text))
    if not markers:
        return UpSection(text, in_transaction=False)
    chars = list(text)
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        if _direction(marker) == "down":
            end = following.start() if following is not None else len(text)
            chars[marker.start() : end] = [c if c == "\n" else " " for c in text[marker.start() : end]]
    ups = [m for m in markers if _direction(m) == "up"]
    opted_out = _GOOSE_NO_TRANSACTION.search(text) or any(_OPT_OUT.search(m.group(4)) for m in ups)
    return UpSection(
        "".join(chars), in_transaction=bool(ups) and not opted_out, opted_out=bool(ups and opted_out)
    )


def _direction(marker: re.Match[str]) -> str:
    return next(group for group in marker.groups()[:3] if group).lower()
