"""Every command page opens with an example and its real output (`<!-- example: ... -->`
blocks, refreshed by `python -m agentddl.checks.docs --examples`): each example is run
again here, as a user would run it from the repository root, and must print what its
page shows, up to the figures a machine changes (`examples.comparable`), with the exit
code the page says."""

from __future__ import annotations

import re

import pytest
from profiles import ROOT

from agentddl.checks.docs.commands import command_pages
from agentddl.checks.docs.examples import Example, ExampleRun, comparable, examples, run_example, same_output

EXAMPLES = examples(ROOT)
SHOWN_EXIT = re.compile(r"^\(exit code (\d+)\)$", re.M)


def test_every_command_page_opens_with_an_example() -> None:
    """An example on every command page; the first fenced block is a real run: the
    example's own, or a run quoted and compared by the command's own tests (check's run
    on a database the page describes)."""
    pages = command_pages(ROOT)
    with_example = {e.page for e in EXAMPLES}
    missing = [str(p.relative_to(ROOT)) for p in pages if str(p.relative_to(ROOT)) not in with_example]
    assert not missing, f"command pages without an example block: {missing}"
    late = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        first_fence = text.find("```")
        quoted_run = text.startswith("```text\n$ agentddl", first_fence)
        if first_fence < text.find("<!-- example:") and not quoted_run:
            late.append(page.name)
    assert not late, f"a fenced block comes before the example on: {late}"


def test_comparable_keeps_words_and_drops_figures() -> None:
    a = "│ claim  │ 1,234 ops/s │ 0.61 │\naudit: 0 error(s)"
    b = "│ claim │ 987 ops/s   │ 1.20 │\naudit: 0 error(s)"
    assert comparable(a) == comparable(b)
    assert comparable("held (13/13)") != comparable("broken (12/13)")
    assert comparable("server: 127.0.0.1:5432/agentddl_8c9226543dd7") == comparable(
        "server: 127.0.0.1:40511/agentddl_94730b31c3cd"
    )


def test_a_long_output_may_differ_in_a_few_lines_but_not_in_its_verdict() -> None:
    paths = [f"| `path_{name}` | pass | Index Scan using {name}_idx |" for name in "abcdefghijklmnopqrst"]
    shown = "\n".join(["```text", *paths, "audit: 0 error(s)", "```"])
    flipped = shown.replace("Index Scan using c_idx", "Seq Scan on c")
    assert same_output(shown, flipped)  # one plan of twenty-one lines
    assert not same_output(shown, flipped.replace("audit: 0 error(s)", "audit: 1 error(s) in path_c"))
    half = "\n".join(["```text", *paths[:10], "audit: 0 error(s)", "```"])
    assert not same_output(shown, half)
    short = "```text\nverify: no findings.\n```"
    assert not same_output("```text\nprofile: default\nverify: no findings.\n```", short)


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.page}:{e.command}" for e in EXAMPLES])
def test_the_example_prints_what_its_page_shows(example: Example) -> None:
    run: ExampleRun = run_example(example.command, ROOT)
    shown_exit = SHOWN_EXIT.search(example.shown)
    assert run.exit_code == (int(shown_exit.group(1)) if shown_exit else 0), run.output
    assert same_output(example.shown, run.block(example.command)), (
        f"{example.page}: the example's output changed; run "
        f"python -m agentddl.checks.docs --examples {example.page}"
    )
