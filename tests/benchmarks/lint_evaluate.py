"""Precision and recall on a labelled corpus (a command, not a test):

    python tests/benchmarks/lint_evaluate.py tests/lint_corpus [--squawk]   (make lint-eval)

Every corpus file starts with a header (`#` instead of `--` in Alembic `.py` revisions):
`-- corpus: label=safe|unsafe pg-version=N runner=psql|alembic hazards=name,...`.
Each file is linted at its own target version and runner. A file is *flagged* when
agentddl reports an error-severity finding on it (squawk reports no severities: any
violation flags). Scores are per file: an unsafe file flagged is a true positive, a
safe one a false positive. With `--squawk` (PyPI squawk-cli, beside this Python or on
PATH) squawk lints the same SQL at the same `--pg-version`; it cannot read Alembic
revisions, so it reads the SQL agentddl renders for them with Alembic's offline mode,
and runs with `--assume-in-transaction` where the file's tool wraps it in a transaction
(Alembic SQL without its own BEGIN; goose, dbmate and sql-migrate files).
See tests/lint_corpus/README.md for the labelling policy.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import TextIO, cast

from lint_squawk import run_squawk, squawk_binary

from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.types import Runner

_HEADER = re.compile(r"^\s*(?:--|#)\s*corpus:(.*)$", re.MULTILINE)
LOCK_TIMEOUT_RULE = "require-lock-timeout"
SQUAWK_TIMEOUT_RULES = frozenset(
    {"require-lock-timeout", "require-statement-timeout", "require-timeout-settings"}
)


class CorpusError(ValueError):
    """A corpus file without a valid `corpus:` header."""


@dataclass(frozen=True)
class CorpusFile:
    """One labelled migration."""

    path: Path
    unsafe: bool
    pg_version: int
    runner: Runner
    hazards: tuple[str, ...]


@dataclass
class Outcome:
    """What each tool reported on one corpus file: the rules of its findings."""

    file: CorpusFile
    agentddl: tuple[str, ...] = ()  # rules with an error-severity finding
    agentddl_warnings: tuple[str, ...] = ()  # rules with a warning or info finding
    squawk: tuple[str, ...] | None = None  # every violated rule; None: squawk not run


Picker = Callable[[Outcome], "tuple[str, ...] | None"]


@dataclass(frozen=True)
class View:
    """One way of counting a tool's findings: the rules that flag a file."""

    name: str
    label: str  # a short column header
    tool: str  # "agentddl" or "squawk"
    pick: Picker

    def rules(self, outcome: Outcome) -> tuple[str, ...] | None:
        return self.pick(outcome)


@dataclass(frozen=True)
class Scores:
    """A confusion matrix at file level."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


def _squawk_without(excluded: Callable[[str], bool]) -> Picker:
    def pick(outcome: Outcome) -> tuple[str, ...] | None:
        return None if outcome.squawk is None else tuple(r for r in outcome.squawk if not excluded(r))

    return pick


def _squawk_style(rule: str) -> bool:
    return rule in SQUAWK_TIMEOUT_RULES or rule.startswith("prefer-") or rule == "ban-char-field"


VIEWS = (
    View("agentddl, default configuration", "adl", "agentddl", lambda o: o.agentddl),
    View(
        "agentddl, lock_timeout required (require-lock-timeout is an error)",
        "adl+104",
        "agentddl",
        lambda o: o.agentddl + tuple(r for r in o.agentddl_warnings if r == LOCK_TIMEOUT_RULE),
    ),
    View(
        "agentddl without require-lock-timeout",
        "adl-104",
        "agentddl",
        lambda o: tuple(r for r in o.agentddl if r != LOCK_TIMEOUT_RULE),
    ),
    View("squawk, every violation", "sq", "squawk", lambda o: o.squawk),
    View(
        "squawk without timeout rules", "sq-tmo", "squawk", _squawk_without(SQUAWK_TIMEOUT_RULES.__contains__)
    ),
    View(
        "squawk hazard rules (no timeout, prefer-*, ban-char-field)",
        "sq-haz",
        "squawk",
        _squawk_without(_squawk_style),
    ),
)


def read_corpus(folder: Path) -> list[CorpusFile]:
    """Every `.sql` and `.py` file under folder, with its header parsed."""
    paths = sorted(p for p in folder.rglob("*") if p.suffix in (".sql", ".py") and p.is_file())
    return [_parse(path) for path in paths]


def _parse(path: Path) -> CorpusFile:
    match = _HEADER.search(path.read_text(encoding="utf-8")[:2000])
    if match is None:
        raise CorpusError(
            f"{path}:1:1: no `-- corpus: label=... pg-version=... runner=... hazards=...` header"
        )
    settings = dict(item.partition("=")[::2] for item in match.group(1).split())
    label, runner = settings.get("label"), settings.get("runner", "psql")
    if label not in ("safe", "unsafe") or runner not in ("psql", "alembic"):
        raise CorpusError(f"{path}:1:1: label must be safe|unsafe and runner psql|alembic")
    hazards = tuple(h for h in settings.get("hazards", "").split(",") if h)
    return CorpusFile(
        path, label == "unsafe", int(settings.get("pg-version", "16")), cast(Runner, runner), hazards
    )


def evaluate(files: list[CorpusFile], squawk: str | None = None) -> list[Outcome]:
    """Lint every file with agentddl (and squawk, given its binary)."""
    outcomes = {f.path: Outcome(f) for f in files}
    for (version, runner), group in _groups(files):
        config = LintConfig(pg_version=version, runner=runner)
        for linted in run(LintRequest([str(f.path) for f in group], config=config)).linted:
            outcome = outcomes[Path(linted.path)]
            for finding in linted.findings:
                if finding.severity == "error":
                    outcome.agentddl = (*outcome.agentddl, finding.name)
                else:
                    outcome.agentddl_warnings = (*outcome.agentddl_warnings, finding.name)
    if squawk is not None:
        for path, rules in run_squawk(squawk, [(f.path, f.pg_version, f.runner) for f in files]).items():
            outcomes[path].squawk = rules
    return [outcomes[f.path] for f in files]


def _groups(files: list[CorpusFile]) -> Iterable[tuple[tuple[int, Runner], list[CorpusFile]]]:
    def key(f: CorpusFile) -> tuple[int, Runner]:
        return f.pg_version, f.runner

    for group_key, group in groupby(sorted(files, key=key), key=key):
        yield group_key, list(group)


def score(outcomes: Iterable[Outcome], view: View) -> Scores:
    """The view's confusion matrix over the outcomes it has results for."""
    tp = fp = fn = tn = 0
    for outcome in outcomes:
        rules = view.rules(outcome)
        if rules is None:
            continue
        flagged, unsafe = bool(rules), outcome.file.unsafe
        tp, fp = tp + (flagged and unsafe), fp + (flagged and not unsafe)
        fn, tn = fn + (not flagged and unsafe), tn + (not flagged and not unsafe)
    return Scores(tp, fp, fn, tn)


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python tests/benchmarks/lint_evaluate.py")
    parser.add_argument("corpus", type=Path, help="folder of labelled migrations")
    parser.add_argument("--squawk", action="store_true", help="also score squawk (PyPI squawk-cli)")
    args = parser.parse_args(argv)
    from lint_evaluate_report import print_report

    try:
        files = read_corpus(args.corpus)
    except (CorpusError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    binary = squawk_binary() if args.squawk else None
    if args.squawk and binary is None:
        print("squawk: not installed (pip install squawk-cli); scoring agentddl only", file=out)
    print_report(evaluate(files, binary), [v for v in VIEWS if binary or v.tool == "agentddl"], out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
