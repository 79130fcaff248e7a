"""`agentddl generate --profile PROFILE` (`-p`), like every other command; the positional
PROFILE keeps working and writes the same files. Both at once, or neither, is one usage
line (exit code 2) and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.cli.main import main

PROFILE = Path(__file__).parents[2] / "schemas" / "default.yaml"


def _files(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()
    }


def test_the_option_and_the_argument_write_the_same_files(tmp_path: Path) -> None:
    by_option, by_short, by_argument = tmp_path / "option", tmp_path / "short", tmp_path / "argument"
    assert main(["generate", "--profile", str(PROFILE), "--out", str(by_option)]) == 0
    assert main(["generate", "-p", str(PROFILE), "--out", str(by_short)]) == 0
    assert main(["generate", str(PROFILE), "--out", str(by_argument)]) == 0
    written = _files(by_option)
    assert "schema.sql" in written and written == _files(by_short) == _files(by_argument)
    assert main(["generate", "--profile", str(PROFILE), "--out", str(by_argument), "--check"]) == 0


@pytest.mark.parametrize(
    ("profile_args", "message"),
    [
        (
            ["PROFILE", "--profile", "PROFILE"],
            "the profile is given twice (PROFILE {p} and --profile {p}): give it once",
        ),
        ([], "missing the profile: give it as --profile PROFILE (or as the first argument)"),
    ],
    ids=["both", "neither"],
)
def test_both_or_neither_is_one_usage_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], profile_args: list[str], message: str
) -> None:
    argv = [str(PROFILE) if arg == "PROFILE" else arg for arg in profile_args]
    assert main(["generate", *argv, "--out", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    expected = message.format(p=PROFILE)
    assert captured.err == f"agentddl: {expected} (see agentddl generate --help)\n"
    assert captured.out == "" and not (tmp_path / "out").exists()
