"""`python -m agentddl.checks.docs [--root .] [--check]`: write the generated reference
pages (or, with --check, write nothing and exit 1 when one is missing, stale or
orphaned, or a rule's docstring lacks a required section).

`--examples [PAGE ...]` runs the command pages' examples (real servers, seconds each)
and rewrites their output blocks; a test compares them with a new run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentddl.checks.core.rules import missing_sections
from agentddl.checks.docs.architecture import architecture_files
from agentddl.checks.docs.commands import command_files
from agentddl.checks.docs.examples import refresh
from agentddl.checks.docs.profile import profile_page
from agentddl.checks.docs.registry import all_rules
from agentddl.checks.docs.rules import rule_files
from agentddl.checks.docs.schemas import SCHEMA_DIR, schema_files
from agentddl.generator.output import write_files

# Every file of these kinds under these folders is generated: others are orphans.
GENERATED_DIRS = {"docs/rules": "*.md", SCHEMA_DIR: "*.json"}


def expected_files(root: Path) -> dict[str, str]:
    """Every generated page (rules, profile reference), the output's JSON Schemas, every
    command page with its help block current and the architecture page with its import
    graph current, by path relative to the repository root."""
    return {
        **rule_files(all_rules()),
        "docs/profile.md": profile_page(),
        **schema_files(),
        **command_files(root),
        **architecture_files(root),
    }


def drift(root: Path) -> list[str]:
    """Generated files that are missing, stale or orphaned under `root`."""
    files = expected_files(root)
    stale = [
        path
        for path, text in files.items()
        if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text
    ]
    return stale + [str(p.relative_to(root)) for p in _orphans(root, files)]


def _orphans(root: Path, files: dict[str, str]) -> list[Path]:
    found = [p for d, pattern in GENERATED_DIRS.items() for p in sorted((root / d).rglob(pattern))]
    return [p for p in found if str(p.relative_to(root)) not in files]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentddl.checks.docs")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root")
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated page is out of date")
    parser.add_argument(
        "--examples",
        nargs="*",
        metavar="PAGE",
        help="run the command pages' examples and rewrite their output",
    )
    args = parser.parse_args(argv)
    if args.examples is not None:
        for path in refresh(args.root, args.examples):
            print(f"{path}: examples rewritten", file=sys.stderr)
        return 0
    incomplete = {r.code: missing_sections(r) for r in all_rules() if missing_sections(r)}
    for code, sections in incomplete.items():
        print(f"{code}: docstring lacks sections: {', '.join(sections)}", file=sys.stderr)
    if args.check:
        stale = drift(args.root)
        for path in stale:
            print(f"{path}: out of date; run python -m agentddl.checks.docs", file=sys.stderr)
        return 1 if stale or incomplete else 0
    files = expected_files(args.root)
    write_files(files, args.root)
    for orphan in _orphans(args.root, files):
        orphan.unlink()
    return 1 if incomplete else 0


if __name__ == "__main__":
    sys.exit(main())
