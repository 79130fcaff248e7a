"""Every `make X` the README and the docs name is a target of the Makefile (and a phony
one: they are commands, not files), so a reader who copies one never gets "No rule to
make target". Named means: a line of a fenced code block that runs `make X`, an inline
code span `make X ...`, and the bare targets listed after such a span
("(`make bench-lint`, `bench-trace`, ...)")."""

from __future__ import annotations

import re
from pathlib import Path

from profiles import ROOT

FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"`make ([^`]+)`((?:,?\s+(?:and\s+)?`[\w.-]+`)*)")
LISTED = re.compile(r"`([\w.-]+)`")
RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def targets_in(command: str) -> list[str]:
    """The targets of one make command line's arguments (after `make`): options and
    VARIABLE=value assignments left out, up to a shell comment."""
    words = command.split("#", 1)[0].split()
    return [w for w in words if not w.startswith("-") and "=" not in w]


def named_targets(text: str) -> set[str]:
    names: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif fenced and line.split()[:1] == ["make"]:
            names.update(targets_in(line.split(None, 1)[1] if len(line.split()) > 1 else ""))
    for match in SPAN.finditer(text):
        names.update(targets_in(match.group(1)))
        names.update(LISTED.findall(match.group(2)))
    return names


def makefile_rules(text: str) -> tuple[set[str], set[str]]:
    """The Makefile's targets and its .PHONY ones (recipe lines and comments skipped)."""
    targets: set[str] = set()
    phony: set[str] = set()
    for line in text.replace("\\\n", " ").splitlines():
        if line.startswith("\t") or not (match := RULE.match(line)):
            continue
        names = match.group(1).split()
        rest = line[match.end() :].split("#", 1)[0].split()
        if names == [".PHONY"]:
            phony.update(rest)
        else:
            targets.update(names)
    return targets, phony


def test_every_make_target_the_docs_name_exists() -> None:
    targets, phony = makefile_rules((ROOT / "Makefile").read_text(encoding="utf-8"))
    missing: dict[str, list[str]] = {}
    not_phony: dict[str, list[str]] = {}
    for path in documents():
        where = str(path.relative_to(ROOT))
        for name in sorted(named_targets(path.read_text(encoding="utf-8"))):
            if name not in targets:
                missing.setdefault(where, []).append(name)
            elif name not in phony:
                not_phony.setdefault(where, []).append(name)
    assert missing == {}, f"named in the docs, no such target in the Makefile: {missing}"
    assert not_phony == {}, f"named in the docs, not in the Makefile's .PHONY: {not_phony}"


def test_the_reading_finds_what_the_docs_name() -> None:
    """The parsers' teeth: the forms the docs use are found, and a missing target would be."""
    readme = named_targets((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {"demo", "test", "generate", "check", "bench-lint", "bench-trace", "lint-eval"} <= readme
    bench = named_targets((ROOT / "docs" / "commands" / "bench.md").read_text(encoding="utf-8"))
    assert {"bench-hotpath", "bench-evidence"} <= bench
    prose = "Codes are stable; error ones make the exit code 1, and `make` alone builds nothing."
    assert named_targets(prose) == set()
    sample = "```bash\nmake demo   # all\nmake -j2 PG=16 test\n```\nRun `make bench-x --quiet` (`bench-y`).\n"
    assert named_targets(sample) == {"demo", "test", "bench-x"}
    assert named_targets("(`make bench-a`, `bench-b`,\n`bench-c` and `bench-d`)") == {
        "bench-a",
        "bench-b",
        "bench-c",
        "bench-d",
    }
    targets, phony = makefile_rules("X ?= 1\nY := 2\n.PHONY: a b\na: b\n\techo a: b\nb c:\n")
    assert (targets, phony) == ({"a", "b", "c"}, {"a", "b"})
