"""Bad profiles: each mistake gives file:line:column, what was expected, exit 2, no output."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main

GOOD = """profile: 1
name: default
engine: {version: 16}
retention: {events: 30d, checkpoints: 14d}
"""

CASES = {
    "bad-yaml": ("profile: 1\nname: default\nengine: {version: 16\n", ":4:1: invalid YAML"),
    "unknown-key": (
        GOOD.replace("events: 30d", "evnts: 30d"),
        ":4:13: retention.evnts: unknown key (did you mean 'events'?)",
    ),
    "wrong-type": (
        GOOD.replace("version: 16", "version: sixteen"),
        ":3:19: engine.version: expected a valid integer",
    ),
    "version-12": (
        GOOD.replace("version: 16", "version: 12"),
        ":3:19: engine.version: expected a PostgreSQL major 14..18, got 12",
    ),
    "duration-with-words": (
        GOOD.replace("events: 30d", "events: 30 days"),
        ":4:21: retention.events: expected a duration like 30d, 12h, 15m or 60s, got '30 days'",
    ),
    "duplicate-key": (GOOD + "name: other\n", ":5:1: duplicate key 'name'"),
    "impossible-date": (
        GOOD + "extra: 2020-02-30\n",
        ":5:8: invalid YAML: '2020-02-30' is not a valid !!timestamp (day is out of range for month)",
    ),
    "bad-tagged-int": (
        GOOD.replace("version: 16", "version: !!int abc"),
        ":3:19: invalid YAML: 'abc' is not",
    ),
    "unknown-tag": (
        GOOD + "name2: !!python/name:os.system x\n",
        ":5:8: invalid YAML: could not determine a constructor for the tag",
    ),
    "alias-inside-itself": (GOOD + "loop: &x [*x]\n", ":1:1: invalid YAML: nested too deeply"),
    "aliases-of-aliases": (
        GOOD
        + "a: &a [x, x, x, x, x, x, x, x, x, x]\n"  # each next key: ten of the one before
        + "".join(f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in pairwise("abcdefgh")),
        ":8:1: d: expands to more than 10,000 values",
    ),
    "nested-too-deeply": (GOOD + "deep: " + "[" * 5000 + "]" * 5000 + "\n", ":1:1: invalid YAML: nested too"),
    "renamed-key": (
        GOOD + "lock: lease\n",
        ":5:1: lock: unknown key (renamed: use 'lock_strategy')",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_profile_is_located_and_writes_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = CASES[case]
    profile = tmp_path / "bad.yaml"
    profile.write_text(text)
    out = tmp_path / "out"

    code = main(["generate", str(profile), "--out", str(out)])

    err = capsys.readouterr().err
    assert code == 2
    assert f"{profile}{expected}" in err, err
    assert "Traceback" not in err
    assert not out.exists()


BYTES_CASES = {
    "not-utf8": (b"profile: 1\nname: \xc3\xa9\xff\n", ":2:8: not UTF-8 text (byte 0xff)"),
    "binary": (
        b"profile: 1\nname: \x00\x01",
        ":2:7: invalid YAML: special characters are not allowed (#x0000)",
    ),
}


@pytest.mark.parametrize("case", sorted(BYTES_CASES))
def test_profile_that_is_not_text_is_located(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, expected = BYTES_CASES[case]
    profile = tmp_path / "bad.yaml"
    profile.write_bytes(data)

    code = main(["generate", str(profile), "--out", str(tmp_path / "out")])

    err = capsys.readouterr().err
    assert (code, err) == (2, f"agentddl: {profile}{expected}\n")
    assert not (tmp_path / "out").exists()


def test_good_profile_generates(tmp_path: Path) -> None:
    profile = tmp_path / "good.yaml"
    profile.write_text(GOOD)
    assert main(["generate", str(profile), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "schema.sql").is_file()


def test_missing_profile_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["generate", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "out")])
    assert code == 2
    assert "nope.yaml:1:1: cannot read profile" in capsys.readouterr().err


def test_table_columns_list_is_complete() -> None:
    from profiles import example_profiles

    from agentddl.generator.model import derive
    from agentddl.generator.profile.model import TABLE_COLUMNS

    for profile in example_profiles().values():
        for table in derive(profile).tables:
            names = {c.name for c in table.columns} - {profile.tenancy.column}
            assert names <= TABLE_COLUMNS, (table.name, names - TABLE_COLUMNS)


@pytest.mark.parametrize(
    ("tenancy", "expected"),
    [
        ("{column: run_id}", ":3:19: tenancy.column: 'run_id' is already a column of the schema"),
        ("{column: null, row_level_security: true}", "row-level security needs a tenant column"),
    ],
)
def test_tenancy_that_cannot_work_is_refused(
    tenancy: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(f"profile: 1\nname: x\ntenancy: {tenancy}\n")
    assert main(["generate", str(profile), "--out", str(tmp_path / "out")]) == 2
    assert expected in capsys.readouterr().err
