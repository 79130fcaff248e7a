"""Each command page opens with one example and its real output, between
`<!-- example: agentddl <args> -->` and `<!-- /example -->`: the command is run from the
repository root (an embedded PostgreSQL where it needs one) and its text output captured
at the width the `--help` blocks use.

Unlike a `--help` block, an example needs servers and takes seconds, so
`python -m agentddl.checks.docs --examples` refreshes them (not the plain run) and a test
(`tests/integration/test_docs_examples.py`) runs every example again and compares it with
its block. Figures that differ from run to run (timings, ports, rates, table widths) are
compared as their shape only (`comparable`), and a long output may differ in a few lines
(`same_output`: the planner may pick another plan for a path that passes either way).
Each example runs as on a fresh checkout: in a scratch folder holding the repository's
files, without the outputs (`build/`, `out/`) an earlier run left.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentddl.checks.docs.commands import as_shown, command_pages, run_cli

EXAMPLE_BLOCK = re.compile(r"(<!-- example: (agentddl [^\n]+?) -->\n)(.*?)(<!-- /example -->)", re.S)
EXAMPLE_TIMEOUT_SECONDS = 900  # a hang guard: the slowest example (prove) takes about a minute
OUTPUT_FOLDERS = frozenset({"build", "out"})  # what commands write; not part of a fresh checkout
SAME_SHARE = 0.9  # of a long output's lines, the share that must print again


@dataclass(frozen=True)
class Example:
    """One example block of a page: the command and the output the page shows."""

    page: str
    command: str
    shown: str  # the block's text, fences included


@dataclass(frozen=True)
class ExampleRun:
    """What running an example's command printed."""

    output: str
    exit_code: int

    def block(self, command: str) -> str:
        """The fenced block a page shows: the prompt line, the output, a non-zero exit code."""
        status = f"(exit code {self.exit_code})\n" if self.exit_code else ""
        return f"```text\n$ {command}\n{self.output}\n{status}```\n"


def examples(root: Path) -> list[Example]:
    """Every example block of every command page, in page order."""
    found: list[Example] = []
    for page in command_pages(root):
        text = page.read_text(encoding="utf-8")
        for match in EXAMPLE_BLOCK.finditer(text):
            found.append(Example(str(page.relative_to(root)), match.group(2), match.group(3)))
    return found


def run_example(command: str, root: Path) -> ExampleRun:
    """Run `agentddl <args>` as a user would on a fresh checkout of `root`; stdout is the
    output shown (progress and notes on stderr are not), exit code 2 (a usage error) raises."""
    with tempfile.TemporaryDirectory(prefix="agentddl-example-") as scratch:
        checkout = Path(scratch)
        for entry in root.iterdir():
            if entry.name not in OUTPUT_FOLDERS and not entry.name.startswith("."):
                (checkout / entry.name).symlink_to(entry.resolve())
        result = run_cli(shlex.split(command)[1:], timeout=EXAMPLE_TIMEOUT_SECONDS, cwd=checkout)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{command} failed (exit {result.returncode}): {result.stderr.strip()}")
    return ExampleRun(as_shown(result.stdout), result.returncode)


def with_current_examples(page: str, run: Callable[[str], ExampleRun]) -> str:
    """`page` with every example block's output replaced by what `run` printed."""

    def block(match: re.Match[str]) -> str:
        command = match.group(2)
        return f"{match.group(1)}{run(command).block(command)}{match.group(4)}"

    return EXAMPLE_BLOCK.sub(block, page)


def refresh(root: Path, pages: list[str] | None = None) -> list[str]:
    """Run the examples of `pages` (default: every command page) and rewrite their
    blocks; the pages whose text changed."""
    changed: list[str] = []
    for path in command_pages(root):
        relative = str(path.relative_to(root))
        if pages and relative not in pages and path.stem not in pages:
            continue
        text = path.read_text(encoding="utf-8")
        current = with_current_examples(text, lambda command: run_example(command, root))
        if current != text:
            path.write_text(current, encoding="utf-8")
            changed.append(relative)
    return changed


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# Names a run makes up: scratch databases (agentddl_8c9226543dd7) and temporary folders.
_GENERATED_NAME = re.compile(r"\b(?:agentddl|pg|tmp)[\w-]*?[_-][0-9a-z]{6,}\b|/tmp/\S+")
_DRAWING = re.compile(r"[\s─━│┃┏┓┗┛┡┩┠┨┯┷┳┻╇╈╋┼├┤┬┴┌┐└┘═║╔╗╚╝╭╮╰╯]+")


def comparable(block: str) -> list[str]:
    """A block's lines as compared across runs: every number is `#` (timings, ports,
    rates, counts that depend on the machine), a made-up name (scratch database,
    temporary folder) is `NAME`, table drawing and runs of spaces are one space (a wider
    figure widens its column), blank lines dropped."""
    masked = (_NUMBER.sub("#", _GENERATED_NAME.sub("NAME", line)) for line in block.splitlines())
    lines = (_DRAWING.sub(" ", line).strip() for line in masked)
    return [line for line in lines if line]


def _output_lines(block: str) -> list[str]:
    """A block's comparable lines without its fences and exit code line."""
    return [line for line in comparable(block) if not line.startswith(("```", "(exit code"))]


def same_output(shown: str, printed: str) -> bool:
    """Whether the block `printed` shows what the block `shown` does: the same closing line (the verdict) and,
    of all the lines either has, at least SAME_SHARE printed by both (so a short output
    must match line for line, and a 70-path audit may differ in a plan a passing path
    flipped to, but not in its shape)."""
    before, now = _output_lines(shown), _output_lines(printed)
    if not before or not now or before[-1] != now[-1]:
        return False
    common = sum((Counter(before) & Counter(now)).values())
    return common >= SAME_SHARE * max(len(before), len(now))
