"""Print an evaluation: per-file verdicts, confusion matrices, per-family scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from lint_evaluate import Outcome, Scores, View, score


def print_report(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    """The whole report, people-readable."""
    _print_files(outcomes, views, out)
    _print_summary(outcomes, views, out)
    _print_families(outcomes, views, out)


def _print_files(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    print("Per-file verdicts (label, then each tool's rules; FP/FN marks a wrong verdict):", file=out)
    tools = [v for v in views if v.label in ("adl", "sq")]
    for outcome in outcomes:
        label = "unsafe" if outcome.file.unsafe else "safe"
        cells = [f"{_mark(outcome, v)}{v.tool}: {_rule_list(v.rules(outcome))}" for v in tools]
        if outcome.agentddl_warnings:
            cells.insert(1, f"agentddl warnings: {_rule_list(outcome.agentddl_warnings)}")
        print(f"  {outcome.file.path.name:<58} {label:<6} " + " | ".join(cells), file=out)
    print(file=out)


def _mark(outcome: Outcome, view: View) -> str:
    rules = view.rules(outcome)
    if rules is None or bool(rules) == outcome.file.unsafe:
        return ""
    return "FP " if rules else "FN "


def _rule_list(rules: tuple[str, ...] | None) -> str:
    if rules is None:
        return "not run"
    return ",".join(sorted(set(rules))) or "-"


def _print_summary(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    unsafe = sum(o.file.unsafe for o in outcomes)
    print(f"Corpus: {len(outcomes)} files, {unsafe} unsafe, {len(outcomes) - unsafe} safe.", file=out)
    print(f"  {'view':<70} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4}  precision recall   F1", file=out)
    for view in views:
        print(f"  {view.name:<70} {_row(score(outcomes, view))}", file=out)
    print(file=out)


def _row(s: Scores) -> str:
    return f"{s.tp:>4} {s.fp:>4} {s.fn:>4} {s.tn:>4}  {s.precision:>9.3f} {s.recall:>6.3f} {s.f1:>5.3f}"


def _print_families(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    families = sorted({h for o in outcomes for h in o.file.hazards})
    print("Per hazard family (files labelled with it); cells are TP/FN/FP:", file=out)
    header = "".join(f" {v.label:>9}" for v in views)
    print(f"  {'family':<28} unsafe safe{header}", file=out)
    for family in families:
        members = [o for o in outcomes if family in o.file.hazards]
        unsafe = sum(o.file.unsafe for o in members)
        cells = "".join(f" {_cell(score(members, v)):>9}" for v in views)
        print(f"  {family:<28} {unsafe:>6} {len(members) - unsafe:>4}{cells}", file=out)
    print("  " + "; ".join(f"{v.label} = {v.name}" for v in views), file=out)


def _cell(s: Scores) -> str:
    return f"{s.tp}/{s.fn}/{s.fp}"
