"""Every corpus file's verdict is pinned: lint reports exactly the rules
`tests/lint_corpus/expected.json` lists for it, so one new false alarm (or one lost
catch, or a changed warning) fails here, where the precision and recall floors of
test_corpus_scores.py would let a few pass. Each file whose verdict disagrees with its
label is reviewed in the same file (which is right, and why), and the known misses are
the ones the corpus README lists. After a deliberate change, regenerate with
`python tests/benchmarks/lint_corpus_expected.py tests/lint_corpus --write` and review."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[2]
CORPUS = TESTS / "lint_corpus"
sys.path.insert(0, str(TESTS / "benchmarks"))  # the evaluation is a script there, not a package

from lint_corpus_expected import differences, read_expected, verdicts  # noqa: E402
from lint_evaluate import evaluate, read_corpus  # noqa: E402

RIGHT = {"label", "lint"}  # which one a review says is right


@cache
def today() -> dict[str, dict[str, Any]]:
    return verdicts(evaluate(read_corpus(CORPUS)))


@cache
def pinned() -> dict[str, Any]:
    return read_expected(CORPUS)


def _reviewed(section: str) -> dict[str, dict[str, str]]:
    entries = pinned()[section]
    for entry in entries:
        assert set(entry) == {"file", "right", "why"} and entry["why"].strip(), entry
        assert entry["right"] in RIGHT, entry
    return {entry["file"]: entry for entry in entries}


def test_each_file_reports_exactly_the_pinned_rules() -> None:
    changed = differences(today(), pinned()["files"])
    assert changed == [], "lint's verdicts moved (review, then --write):\n" + "\n".join(changed)


def test_every_unsafe_file_lint_passes_is_a_reviewed_known_miss() -> None:
    missed = {name for name, v in pinned()["files"].items() if v["label"] == "unsafe" and not v["errors"]}
    assert set(_reviewed("known_misses")) == missed


def test_every_safe_file_lint_flags_is_a_reviewed_false_alarm() -> None:
    flagged = {name for name, v in pinned()["files"].items() if v["label"] == "safe" and v["errors"]}
    assert set(_reviewed("false_alarms")) == flagged


@pytest.mark.parametrize(
    ("document", "heading"),
    [
        (CORPUS / "README.md", "Known misses"),
        (TESTS.parent / "docs" / "commands" / "lint.md", "The known misses"),
    ],
    ids=["corpus README", "lint page"],
)
def test_the_docs_list_the_known_misses(document: Path, heading: str) -> None:
    section = document.read_text(encoding="utf-8").split(heading, 1)[1].split("\n#", 1)[0]
    listed = {n for line in section.splitlines() if line.startswith("- ") for n in _numbers(line)}
    assert listed == {name[:3] for name in _reviewed("known_misses")}


def _numbers(bullet: str) -> list[str]:
    """The file numbers a bullet starts with: `- 035, 037, 064: ...` -> 035, 037, 064."""
    head = bullet[2:].split(":", 1)[0]
    return re.findall(r"\b\d{3}\b", head)


def test_the_pinned_files_are_the_corpus() -> None:
    """A file added to the corpus needs its verdict pinned; the labels are the headers'."""
    files = pinned()["files"]
    assert sorted(files) == sorted(today())
    assert {n: v["label"] for n, v in files.items()} == {n: v["label"] for n, v in today().items()}


def test_the_figures_the_docs_give_are_the_pinned_verdicts() -> None:
    """Lint's page and the corpus README state the corpus's size and scores: from here."""
    files = pinned()["files"].values()
    unsafe = [v for v in files if v["label"] == "unsafe"]
    safe = [v for v in files if v["label"] == "safe"]
    caught = sum(bool(v["errors"]) for v in unsafe)
    alarms = sum(bool(v["errors"]) for v in safe)
    precision = caught / (caught + alarms) if caught + alarms else 1.0
    page = " ".join((TESTS.parent / "docs" / "commands" / "lint.md").read_text(encoding="utf-8").split())
    said = (
        f"{len(files)} files, {caught} of the {len(unsafe)} unsafe ones flagged and "
        f"{alarms or 'none'} of the {len(safe)} safe ones (precision {precision:.3f}, "
        f"recall {caught / len(unsafe):.3f})"
    )
    assert said in page
    readme = " ".join((CORPUS / "README.md").read_text(encoding="utf-8").split())
    assert f"{len(files)} migrations" in readme and f"{len(unsafe)} are unsafe and {len(safe)} safe" in readme
