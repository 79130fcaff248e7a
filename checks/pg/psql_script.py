"""What psql itself consumes before the server sees SQL, blanked or rewritten in place
(same length, so line and column numbers stay right):

- meta-commands (`\\set`, `\\connect`, `\\i`, `\\timing` ...) on their own lines;
- the data lines after `COPY ... FROM STDIN;`, up to the `\\.` line;
- variable interpolation outside quotes: `:name` becomes the identifier `_name`,
  `:'name'` the literal `'name'`, `:"name"` the identifier `"name"`.
"""

from __future__ import annotations

import itertools
import re

import pglast

_META_COMMAND = re.compile(r"^[ \t]*\\[^\n]*", re.MULTILINE)
_COPY_FROM_STDIN = re.compile(
    r"^[ \t]*COPY\b[^;]*?\bFROM\s+STDIN\b[^;]*;[^\n]*\n", re.IGNORECASE | re.MULTILINE
)
_END_OF_DATA = re.compile(r"^\\\.[ \t]*$", re.MULTILINE)
_COLON = "ASCII_58"
_AFTER_VALUE = re.compile(r"[\w\]\)\"'$.]")  # `a[lo:hi]`, `x:y`: a slice, not a variable


def as_sql(text: str) -> str:
    """The text with psql's own syntax blanked or replaced, offsets unchanged."""
    text = _blank_copy_data(text)
    text = _META_COMMAND.sub(lambda m: " " * len(m.group(0)), text)
    return _replace_variables(text) if ":" in text else text


def _blank_copy_data(text: str) -> str:
    position = 0
    while (copy := _COPY_FROM_STDIN.search(text, position)) is not None:
        end = _END_OF_DATA.search(text, copy.end())
        stop = end.end() if end is not None else len(text)
        text = text[: copy.end()] + re.sub(r"[^\n]", " ", text[copy.end() : stop]) + text[stop:]
        position = stop
    return text


def copy_data(text: str, statement_end: int) -> str:
    """The data lines psql sends for the `COPY ... FROM STDIN` statement ending at
    `statement_end`: from the line after it up to the `\\.` line (or the end of the file)."""
    newline = text.find("\n", statement_end)
    start = len(text) if newline == -1 else newline + 1
    end = _END_OF_DATA.search(text, start)
    return text[start : end.start() if end is not None else len(text)]


def _replace_variables(text: str) -> str:
    try:
        tokens = pglast.parser.scan(text)  # offsets are in characters
    except pglast.parser.ParseError:
        return text
    chars = list(text)
    for colon, following in itertools.pairwise(tokens):
        start = colon.start
        if colon.name != _COLON or following.start != start + 1:
            continue
        if start > 0 and _AFTER_VALUE.match(text[start - 1]):
            continue
        first = text[start + 1]
        if first in "'\"":  # :'name' -> 'name' ; :"name" -> "name"
            chars[start : following.end + 1] = [*text[start + 1 : following.end + 1], " "]
        elif first.isalpha() or first == "_":
            chars[start] = "_"
    return "".join(chars)
