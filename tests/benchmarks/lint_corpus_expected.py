"""The pinned verdict of every corpus file (a command, not a test):

    python tests/benchmarks/lint_corpus_expected.py tests/lint_corpus [--write]

Prints, per file, the rules agentddl reports today (error and warning severity, the
default configuration at the file's target version and runner) next to the ones pinned
in `tests/lint_corpus/expected.json`, and with `--write` rewrites the file's `files`
section. The reviewed sections (`known_misses`, `false_alarms`: every file whose verdict
disagrees with its label, with which is right and why) are written by hand and kept.
tests/unit/lint/test_corpus_verdicts.py holds lint to the file exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from lint_evaluate import Outcome, evaluate, read_corpus

EXPECTED = "expected.json"
ABOUT = (
    "Per corpus file: its label and the rules agentddl reports on it (default configuration, "
    "the file's pg-version and runner), split by severity; an error flags the file. "
    "known_misses: unsafe files agentddl passes; false_alarms: safe files it flags; each says "
    "which of label and lint is right, and why. Regenerate `files` with "
    "`python tests/benchmarks/lint_corpus_expected.py tests/lint_corpus --write`, then review the diff."
)


def verdicts(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    """Each file's label and the sorted, distinct rules of its findings by severity."""
    return {
        o.file.path.name: {
            "label": "unsafe" if o.file.unsafe else "safe",
            "errors": sorted(set(o.agentddl)),
            "warnings": sorted(set(o.agentddl_warnings)),
        }
        for o in outcomes
    }


def read_expected(corpus: Path) -> dict[str, Any]:
    path = corpus / EXPECTED
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_expected(corpus: Path, files: dict[str, dict[str, Any]]) -> None:
    found = read_expected(corpus)
    document = {
        "about": ABOUT,
        "files": files,
        "known_misses": found.get("known_misses", []),
        "false_alarms": found.get("false_alarms", []),
    }
    (corpus / EXPECTED).write_text(_one_line_per_entry(document), encoding="utf-8")


def _one_line_per_entry(document: dict[str, Any]) -> str:
    """JSON with each file's verdict and each review on a line of its own: diffs name files."""
    parts = []
    for key, value in document.items():
        if isinstance(value, dict):
            items = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()]
        elif isinstance(value, list):
            items = [f"  {json.dumps(v, ensure_ascii=False)}" for v in value]
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
            continue
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        body = ",\n".join(items)
        parts.append(
            f" {json.dumps(key)}: {opening}\n{body}\n {closing}"
            if items
            else f" {json.dumps(key)}: {opening}{closing}"
        )
    return "{\n" + ",\n".join(parts) + "\n}\n"


def differences(today: dict[str, dict[str, Any]], pinned: dict[str, dict[str, Any]]) -> list[str]:
    """One line per file whose rules (or presence) differ: `name: pinned ... -> today ...`."""
    lines = []
    for name in sorted(today.keys() | pinned.keys()):
        if today.get(name) != pinned.get(name):
            lines.append(f"{name}: pinned {pinned.get(name)} -> today {today.get(name)}")
    return lines


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python tests/benchmarks/lint_corpus_expected.py")
    parser.add_argument("corpus", type=Path, help="folder of labelled migrations")
    parser.add_argument("--write", action="store_true", help=f"rewrite {EXPECTED}'s files section")
    args = parser.parse_args(argv)
    today = verdicts(evaluate(read_corpus(args.corpus)))
    changed = differences(today, read_expected(args.corpus).get("files", {}))
    print("\n".join(changed) or f"every file's verdict equals {EXPECTED}", file=out)
    if args.write:
        write_expected(args.corpus, today)
        print(f"wrote {args.corpus / EXPECTED} ({len(today)} files)", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
