"""Print an evaluation: per-file verdicts, confusion matrices, per-family scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from agentddl.checks.lint.evaluate import Outcome, Scores, View, score


def print_report(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    """The whole report, people-readable."""
    _print_files(outcomes, views, out)
    _print_summary(outcomes, views, out)
    _print_families(outcomes, views, out)


def _print_files(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    print("Per-file verdicts (label, then each tool's rules; FP/FN marks a wrong verdict):", file=out)
    tools = [v for v in views if v.name.startswith(("agentddl (", "squawk ("))]
    for outcome in outcomes:
        label = "unsafe" if outcome.file.unsafe else "safe"
        cells = [f"{_mark(outcome, v)}{v.tool}: {_rule_list(v.rules(outcome))}" for v in tools]
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
    print(f"  {'view':<68} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4}  precision recall   F1", file=out)
    for view in views:
        print(f"  {view.name:<68} {_row(score(outcomes, view))}", file=out)
    print(file=out)


def _row(s: Scores) -> str:
    return f"{s.tp:>4} {s.fp:>4} {s.fn:>4} {s.tn:>4}  {s.precision:>9.3f} {s.recall:>6.3f} {s.f1:>5.3f}"


def _print_families(outcomes: list[Outcome], views: Sequence[View], out: TextIO) -> None:
    families = sorted({h for o in outcomes for h in o.file.hazards})
    print("Per hazard family (files labelled with it; P/R per view, flagged safe files = FP):", file=out)
    header = "".join(f" | {v.name.split(' (')[0].split(' without')[0][:8]:>8}{_suffix(v)}" for v in views)
    print(f"  {'family':<28} unsafe safe{header}", file=out)
    for family in families:
        members = [o for o in outcomes if family in o.file.hazards]
        unsafe = sum(o.file.unsafe for o in members)
        cells = "".join(f" | {_cell(score(members, v))}" for v in views)
        print(f"  {family:<28} {unsafe:>6} {len(members) - unsafe:>4}{cells}", file=out)
    print("  (cells: TP/FN/FP)", file=out)


def _suffix(view: View) -> str:
    return {"agentddl (default rules)": "", "agentddl without require-lock-timeout": "-104"}.get(
        view.name, "-" + str(_squawk_index(view.name))
    )


def _squawk_index(name: str) -> int:
    return 1 if "every" in name else 2 if "without timeout" in name else 3


def _cell(s: Scores) -> str:
    return f"{s.tp:>3}/{s.fn}/{s.fp:<2}".rjust(10)
