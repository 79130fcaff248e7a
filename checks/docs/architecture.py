"""The generated part of `docs/architecture.md`: the import graph between the packages
(`agentddl.checks.<package>`, `agentddl.generator.<package>`) read from the source, as a
Mermaid picture and a table, between `<!-- imports: packages -->` and `<!-- /imports -->`.
The rest of the page is written by hand."""

from __future__ import annotations

import re
from pathlib import Path

from agentddl.checks.docs.imports import Graph, import_graph, import_groups, package_imports

PAGE = "docs/architecture.md"
IMPORTS_BLOCK = re.compile(r"(<!-- imports: packages -->\n)(.*?)(<!-- /imports -->)", re.S)
INTRO = """\
An arrow `A --> B`: a module of package A imports a module of package B (at the top, inside
a function or for type checking only). The picture leaves out an arrow a longer path
already implies; the table lists every one."""


def architecture_files(root: Path) -> dict[str, str]:
    """The architecture page with its import graph current (nothing when there is no page)."""
    page = root / PAGE
    if not page.is_file():
        return {}
    block = imports_block(package_imports(import_graph(root)))
    text = IMPORTS_BLOCK.sub(lambda m: f"{m.group(1)}{block}{m.group(3)}", page.read_text(encoding="utf-8"))
    return {PAGE: text}


def imports_block(packages: Graph) -> str:
    """The picture, the table and the packages that import each other, as Markdown."""
    lines = [INTRO, "", "```mermaid", "graph TD"]
    lines += [f'  {_node(p)}["{_short(p)}"]' for p in sorted(packages)]
    reduced = transitive_reduction(packages)
    lines += [f"  {_node(a)} --> {_node(b)}" for a in sorted(reduced) for b in sorted(reduced[a])]
    lines += ["```", "", "| package | imports | imported by |", "|---|---|---|"]
    for package in sorted(packages):
        users = sorted(p for p, imported in packages.items() if package in imported)
        lines.append(f"| `{_short(package)}` | {_names(packages[package])} | {_names(users)} |")
    for group in import_groups(packages):
        names = ", ".join(f"`{_short(p)}`" for p in group)
        lines += ["", f"These packages import each other, through modules that do not: {names}."]
    return "\n".join(lines) + "\n"


def transitive_reduction(graph: Graph) -> Graph:
    """`graph` without the edges a longer path implies, dropped one by one (so what stays
    reaches everything the graph reached, cycles included)."""
    reduced = {node: set(targets) for node, targets in graph.items()}
    for source in sorted(reduced):
        for target in sorted(reduced[source]):
            reduced[source].discard(target)
            if not any(_reaches(reduced, step, target) for step in reduced[source]):
                reduced[source].add(target)
    return reduced


def _reaches(graph: Graph, start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        fresh = graph.get(node, set()) - seen
        seen |= fresh
        todo += sorted(fresh)
    return False


def _short(package: str) -> str:
    return package.removeprefix("agentddl.")


def _node(package: str) -> str:
    return _short(package).replace(".", "_")


def _names(packages: list[str] | set[str]) -> str:
    return ", ".join(f"`{_short(p)}`" for p in sorted(packages)) or "—"
