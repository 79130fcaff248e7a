"""Random and corrupted inputs for the CLI fuzz test (tests/unit/test_cli_fuzz.py): what a
user can put on a command line or in a file, from plausible mistakes to binary noise."""

from __future__ import annotations

import os
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
GOOD_PROFILE = yaml.safe_load((ROOT / "schemas" / "default.yaml").read_text(encoding="utf-8"))

# What argv can hold: any text but NUL; bytes that are not UTF-8 arrive as surrogates.
ARG_TEXT = st.one_of(
    st.text(st.characters(exclude_characters="\x00"), max_size=30),
    st.binary(max_size=30).map(os.fsdecode),
).filter(lambda text: "\x00" not in text)
NO_DIGITS = ARG_TEXT.filter(lambda text: not any(ch.isdigit() for ch in text))
IDENT = st.text(string.ascii_lowercase + "_", min_size=1, max_size=12)


@dataclass(frozen=True)
class FileSpec:
    """A path to give a command: `kind` says what is there (nothing, a folder, bytes)."""

    kind: str  # "missing" | "directory" | "file"
    data: bytes = b""

    def make(self, path: Path) -> str:
        if self.kind == "directory":
            path.mkdir()
        elif self.kind == "file":
            path.write_bytes(self.data)
        return str(path)


def _not_utf8(parts: tuple[bytes, bytes]) -> bytes:
    return parts[0] + b"\xff" + parts[1]  # 0xff never occurs in UTF-8


NOT_UTF8 = st.tuples(st.binary(max_size=200), st.binary(max_size=200)).map(_not_utf8)
TEXT = st.text(max_size=300)  # any Unicode (NUL included), as UTF-8


def _yaml_documents() -> st.SearchStrategy[str]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
    data = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
        max_leaves=12,
    )
    return data.map(_without_name).map(lambda doc: yaml.safe_dump(doc, allow_unicode=True))


def _without_name(doc: Any) -> Any:
    """A profile needs `name`: without it no random document is a valid profile."""
    return {k: v for k, v in doc.items() if k != "name"} if isinstance(doc, dict) else doc


# No profile key takes a list, and none takes a mapping with these keys.
WRONG_VALUE = st.one_of(
    st.lists(st.integers(), min_size=1, max_size=2),
    st.dictionaries(IDENT.map(lambda k: f"zz_{k}"), st.integers(), min_size=1, max_size=2),
)


@st.composite
def mutated_profiles(draw: st.DrawFn) -> str:
    """The default profile with one mistake: a value of the wrong type (at the top or in a
    section), an unknown key, or the required `name` left out."""
    doc = {k: dict(v) if isinstance(v, dict) else v for k, v in GOOD_PROFILE.items()}
    mistake = draw(st.sampled_from(["wrong-type", "unknown-key", "no-name"]))
    key = draw(st.sampled_from(sorted(doc)))
    if mistake == "wrong-type" and isinstance(doc[key], dict) and draw(st.booleans()):
        doc[key][draw(st.sampled_from(sorted(doc[key])))] = draw(WRONG_VALUE)
    elif mistake == "wrong-type":
        doc[key] = draw(WRONG_VALUE)
    elif mistake == "unknown-key":
        target = doc[key] if isinstance(doc[key], dict) else doc
        target[f"zz_{draw(IDENT)}"] = draw(st.integers())
    else:
        del doc["name"]
    return yaml.safe_dump(doc, sort_keys=False)


@st.composite
def corrupted_profiles(draw: st.DrawFn) -> bytes:
    """The default profile's bytes flipped, cut or spliced, then an unknown key appended:
    whatever the damage did, the file is not a valid profile."""
    data = bytearray((ROOT / "schemas" / "default.yaml").read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "cut", "splice"]))
        if action == "flip":
            data[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[at : at + draw(st.integers(1, 40))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=20))
    return bytes(data) + b"\nzz_unknown_key: 1\n"


def _toml_line(pair: tuple[str, str]) -> str:
    return f"{pair[0]} = {pair[1]}"


TOML_KEYS = st.sampled_from(["pg_version", "runner", "profile", "lock_timeout", "rules", "options", "zz"])


def _toml_string(text: str) -> str:
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', "") + '"'


TOML_VALUES = st.one_of(
    st.integers().map(str),
    st.text(max_size=20).map(_toml_string),
    st.sampled_from(["true", "[1, 2]", "{ required = 3 }", "{ max_ms = -1 }", '"psql"', "[[x]]"]),
)
TOML_LINES = st.lists(st.one_of(st.tuples(TOML_KEYS, TOML_VALUES).map(_toml_line), TEXT), max_size=6)
# A key the config refuses comes first, so no random rest makes the file valid.
BAD_CONFIGS = TOML_LINES.map(lambda lines: "zz_unknown_key = 1\n" + "\n".join(lines) + "\n")

UNPARSABLE_SQL = TEXT.map(lambda text: text + "\nCREATE TABLE (((;\n")
QUERY_BLOCKS = st.lists(
    st.tuples(IDENT, TEXT).map(lambda block: f"-- name: {block[0]}(a)\n-- example: a = 1\n{block[1]}\n"),
    max_size=3,
).map("".join)

PROFILE_CONTENTS = st.one_of(
    NOT_UTF8,
    _yaml_documents().map(str.encode),
    mutated_profiles().map(str.encode),
    corrupted_profiles(),
    st.just(b""),
)
READABLE = st.one_of(TEXT, _yaml_documents(), BAD_CONFIGS, UNPARSABLE_SQL, QUERY_BLOCKS).map(str.encode)

UNREADABLE_FILES = st.one_of(
    st.just(FileSpec("missing")),
    st.just(FileSpec("directory")),
    NOT_UTF8.map(lambda data: FileSpec("file", data)),
)
PROFILE_FILES = st.one_of(UNREADABLE_FILES, PROFILE_CONTENTS.map(lambda data: FileSpec("file", data)))
ANY_FILES = st.one_of(
    UNREADABLE_FILES, st.one_of(PROFILE_CONTENTS, READABLE).map(lambda data: FileSpec("file", data))
)


TIMEOUT = "connect_timeout=2"


def refused_dsns(port: int) -> st.SearchStrategy[tuple[str, str]]:
    """(DSN, its password): unparsable strings, or 127.0.0.1:`port`, where nothing listens."""
    password = st.text(string.ascii_letters, min_size=6, max_size=12).map(lambda s: f"pw{s}")
    unparsable = ARG_TEXT.filter(lambda s: s.strip() and "=" not in s and "://" not in s)
    uri = st.tuples(IDENT, password, IDENT).map(
        lambda p: (f"postgresql://{quote(p[0])}:{p[1]}@127.0.0.1:{port}/{quote(p[2])}?{TIMEOUT}", p[1])
    )
    keywords = st.tuples(IDENT, password).map(
        lambda p: (f"host=127.0.0.1 port={port} user={p[0]} password={p[1]} {TIMEOUT}", p[1])
    )
    return st.one_of(unparsable.map(lambda s: (s, "")), uri, keywords)


def bad_numbers(floats: bool) -> st.SearchStrategy[str]:
    """Values an int (or float) option should refuse, and a few it accepts."""
    words = ["nan", "inf", "-inf", "1e999", "0x10", "1_0"] if floats else ["0x10", "1_0", "1.5", "1e3"]
    return st.one_of(
        NO_DIGITS,
        st.integers(max_value=-1).map(str),
        st.integers(min_value=10**6, max_value=10**30).map(str),
        st.integers(0, 20).map(str),
        st.sampled_from(words),
    )
