"""Every `make X` the README, CONTRIBUTING.md and the docs name is a target of the Makefile (and a phony
one: they are commands, not files), so a reader who copies one never gets "No rule to
make target". Named means: a line of a fenced code block that runs `make X`, an inline
code span `make X ...`, and the bare targets listed after such a span
("(`make bench-lint`, `bench-trace`, ...)")."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from profiles import ROOT

from agentddl.checks.docs.registry import all_rules
from agentddl.checks.prove.hot import uses_redis
from agentddl.checks.prove.rules import all_rules as prove_rules
from agentddl.checks.prove.scenarios import declared
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS, STEP_TRIES
from agentddl.generator.profile import LockStrategy, load_profile
from agentddl.generator.render.revision_helpers import LOCK_ATTEMPTS, LOCK_TIMEOUT

FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"`make ([^`]+)`((?:,?\s+(?:and\s+)?`[\w.-]+`)*)")
LISTED = re.compile(r"`([\w.-]+)`")
RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)")


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]


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
    contributing = named_targets((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert {"reinstall", "postgres", "generate", "docs", "check", "test", "lint-eval"} <= contributing
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


# Counts the docs state about the code, derived from the code: a prove run's summary line
# (`prove: every scenario held (N/N).`) from the scenarios its command runs, "N/N held" in
# prose from the default run, and every rule code or range of codes a page names from the
# rule registry (a prove range from the scenarios its rules prove).
SUMMARY = re.compile(r"prove: (every scenario held|\d+ scenarios BROKEN) \((\d+)/(\d+)\)")
HELD = re.compile(r"\b(\d+)/(\d+) held\b")
CODE = re.compile(r"\bAD[A-Z]\d{3}\b")
CODE_RANGE = re.compile(r"\b(AD[A-Z])(\d{3})\s*[\u2013-]\s*(AD[A-Z])(\d{3})\b")  # en dash or hyphen
PROVE = "$ agentddl prove "


def prove_total(command: str) -> int:
    """How many results (strategy x scenario) `agentddl prove ...` reports on a machine with
    every tool installed: the --scenario ones, else the profile's whole set (the hot ones
    with a Redis profile; those that crash the server or a pooler only on its own server)."""
    words = shlex.split(command)
    valued = {w: words[i + 1] for i, w in enumerate(words[:-1])}
    asked = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--scenario"]
    strategies = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--strategy"]
    profile = load_profile(ROOT / (valued.get("--profile") or valued.get("-p") or "schemas/default.yaml"))
    own_server = "--dsn" not in words and "--server" not in words
    scenarios = asked or [
        s.name for s in declared() if (not s.hot or uses_redis(profile)) and (own_server or not s.own_server)
    ]
    count = len(LockStrategy) if strategies == ["all"] else max(len(strategies), 1)
    return count * len(scenarios)


def summaries(text: str) -> list[tuple[str, bool, int, int]]:
    """Each prove summary line in a code block (whether it says every scenario held, and
    its counts), with the `$ agentddl prove` command above it."""
    found: list[tuple[str, bool, int, int]] = []
    command = ""
    for line in text.splitlines():
        if FENCE.match(line):
            command = ""
        elif line.startswith(PROVE):
            command = line[2:]
        elif match := SUMMARY.search(line):
            found.append(
                (command, match.group(1) == "every scenario held", int(match.group(2)), int(match.group(3)))
            )
    return found


def test_prove_summaries_in_the_docs_count_what_the_command_runs() -> None:
    wrong = []
    for path in documents():
        for command, all_held, held, total in summaries(path.read_text(encoding="utf-8")):
            expected = prove_total(command)
            if not command or total != expected or (all_held and held != total):
                wrong.append(f"{path.relative_to(ROOT)}: `{command}` says {held}/{total}, runs {expected}")
    assert wrong == []


def test_n_of_n_held_in_prose_is_the_default_run() -> None:
    default = prove_total("agentddl prove --profile schemas/default.yaml")
    wrong = [
        f"{path.relative_to(ROOT)}: {match.group(0)} (the default run has {default} scenarios)"
        for path in documents()
        for match in HELD.finditer(path.read_text(encoding="utf-8"))
        if {int(match.group(1)), int(match.group(2))} != {default}
    ]
    assert wrong == []


def test_every_rule_code_the_docs_name_exists() -> None:
    codes = {rule.code for rule in all_rules()}
    unknown = {
        f"{path.relative_to(ROOT)}: {code}"
        for path in documents()
        for code in CODE.findall(path.read_text(encoding="utf-8"))
        if code not in codes
    }
    ranges = {
        f"{path.relative_to(ROOT)}: {match.group(0)} has no {prefix}{number:03d}"
        for path in documents()
        for match in CODE_RANGE.finditer(path.read_text(encoding="utf-8"))
        for prefix in [match.group(1)]
        for number in range(int(match.group(2)), int(match.group(4)) + 1)
        if f"{prefix}{number:03d}" not in codes
    }
    assert unknown | ranges == set()


def test_a_range_of_prove_codes_is_one_kind_of_scenario_whole() -> None:
    """A prove range names a whole kind of scenario: the hot ones, or the others."""
    by_kind: dict[bool, set[str]] = {}
    for rule in prove_rules():
        by_kind.setdefault(rule.scenario.hot, set()).add(rule.code)
    wrong = []
    for path in documents():
        for match in CODE_RANGE.finditer(path.read_text(encoding="utf-8")):
            if match.group(1) == match.group(3) == "ADP":
                named = {f"ADP{n}" for n in range(int(match.group(2)), int(match.group(4)) + 1)}
                if named not in by_kind.values():
                    wrong.append(f"{path.relative_to(ROOT)}: {match.group(0)}; the kinds are {by_kind}")
    assert wrong == []


def test_the_count_readers_have_teeth() -> None:
    assert prove_total("agentddl prove -p schemas/default.yaml --scenario stale_writer") == 1
    assert prove_total("agentddl prove -p schemas/default.yaml --strategy all --scenario a --scenario b") == 8
    everything = prove_total("agentddl prove --profile schemas/default.yaml")
    assert prove_total("agentddl prove --profile schemas/default.yaml --dsn x") < everything
    sample = (
        "```text\n$ agentddl prove -p schemas/default.yaml\n...\nprove: every scenario held (7/7).\n```\n"
    )
    assert summaries(sample) == [("agentddl prove -p schemas/default.yaml", True, 7, 7)]
    assert [m.group(0) for m in HELD.finditer("all 7/7 held; 9/9 held")] == ["7/7 held", "9/9 held"]
    assert CODE_RANGE.search("rules (ADP101\u2013ADP109:") is not None


def _ms(setting: str) -> int:
    return int(setting.removesuffix("ms"))


def test_lock_timeouts_the_docs_state_are_the_code_s() -> None:
    """Each timeout and retry budget a page (or a benchmark's docstring) states, built
    from the constant it describes."""
    words = {5: "five", 6: "six", 7: "seven", 8: "eight", 10: "ten"}
    stated = {
        "docs/commands/generate.md": [
            f"`lock_timeout = {STEP_LOCK_TIMEOUT_MS}ms` and up to {words.get(STEP_TRIES, STEP_TRIES)} tries",
            f"`LOCK_TIMEOUT` ({_ms(LOCK_TIMEOUT)} ms) for the lock and retries up to `LOCK_ATTEMPTS` "
            f"({LOCK_ATTEMPTS}) times",
        ],
        "docs/commands/diff.md": [
            f"after `lock_timeout` ({_ms(LOCK_TIMEOUT)} ms)",
            f"each waits at most {_ms(LOCK_TIMEOUT)} ms for its lock",
        ],
        "tests/benchmarks/retention_bench.py": [f"under a {STEP_LOCK_TIMEOUT_MS} ms lock_timeout"],
    }
    missing = [
        f"{where}: {text!r}"
        for where, texts in stated.items()
        for text in texts
        if text not in " ".join((ROOT / where).read_text(encoding="utf-8").split())
    ]
    assert missing == []
