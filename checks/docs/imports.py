"""The import graph of agentddl's own modules, read from the source with `ast` (nothing is
imported). Every import statement counts: at the top of a module, inside a function, under
`if TYPE_CHECKING:`. `from agentddl.x import y` imports the package `agentddl.x` (its
`__init__`, even from a module inside it) and the module `agentddl.x.y` when there is one;
`import agentddl.x.y` imports `agentddl.x` too, unless it is the importer's own ancestor
(Python initialises a module's ancestors before the module, so they close no cycle). A
name built at run time (`importlib.import_module(f"...")`) is not seen: it is imported on
first use, after the modules involved have loaded.

`tests/unit/test_architecture.py` fails on any cycle (`cycles`); `docs/architecture.md`
shows the graph between packages (`package_imports`, `imports_block`)."""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from collections.abc import Iterator
from pathlib import Path

TOPS = ("checks", "generator")  # the repository folders of the package agentddl
ROOTS = frozenset(f"agentddl.{top}" for top in TOPS)
Graph = dict[str, set[str]]  # module -> the modules it imports


def module_files(root: Path) -> dict[str, Path]:
    """Every module of checks/ and generator/ by its import name (`agentddl.checks.db.process`)."""
    found: dict[str, Path] = {}
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(["agentddl", *parts])] = path
    return found


def import_graph(root: Path) -> Graph:
    """Which of the modules of checks/ and generator/ each one imports."""
    files = module_files(root)
    known = set(files)
    graph: Graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets = {t for node in ast.walk(tree) for t in _imported_names(node, package)}
        graph[module] = {m for t in targets for m in _loaded_modules(t, module, known)}
    return graph


def _imported_names(node: ast.AST, package: str) -> list[str]:
    """The dotted names one statement imports (for `from a import b`: `a` and `a.b`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # relative: `from . import x` in package p is `from p import x`
        anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _loaded_modules(target: str, importer: str, known: set[str]) -> Iterator[str]:
    """The known modules importing `target` from `importer` runs: the target itself and
    its parent packages, but never the importer or the importer's own ancestors through
    a parent (an explicit import of an ancestor package still counts)."""
    if target in known and target != importer:
        yield target
    parts = target.split(".")
    for end in range(2, len(parts)):
        parent = ".".join(parts[:end])
        if parent in known and parent != importer and not importer.startswith(f"{parent}."):
            yield parent


def cycles(graph: Graph) -> list[list[str]]:
    """One import cycle per group of modules that import each other, as a closed path
    through the group (`[a, b, a]`), sorted."""
    return sorted(_closed_path(set(group), graph) for group in import_groups(graph))


def import_groups(graph: Graph) -> list[list[str]]:
    """The groups of two or more nodes each of which reaches every other (sorted)."""
    return sorted(sorted(group) for group in _strongly_connected(graph) if len(group) > 1)


def _strongly_connected(graph: Graph) -> list[set[str]]:
    """Tarjan's algorithm, without recursion (a long import chain would exhaust the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    groups.append(_pop_group(node, stack, on_stack))
            elif step not in index:
                index[step] = low[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph.get(step, ())))))
            elif step in on_stack:
                low[node] = min(low[node], index[step])
    return groups


def _pop_group(root: str, stack: list[str], on_stack: set[str]) -> set[str]:
    group: set[str] = set()
    while True:
        node = stack.pop()
        on_stack.discard(node)
        group.add(node)
        if node == root:
            return group


def _closed_path(group: set[str], graph: Graph) -> list[str]:
    """The shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for step in sorted(graph[node] & group):
            if step == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if step not in came_from:
                came_from[step] = node
                queue.append(step)
    raise AssertionError(f"{start} is in a strongly connected group but reaches no cycle")


def package_of(module: str) -> str:
    """The package a module belongs to on the architecture page: `agentddl.checks.<package>`
    or `agentddl.generator.<package>` (a module directly under either is its own)."""
    return ".".join(module.split(".")[:3])


def package_imports(graph: Graph) -> Graph:
    """Which package imports which: an edge wherever one of its modules imports a module of
    the other. `agentddl.checks` and `agentddl.generator` themselves are no target (every
    import of a package below them runs them) and are a source only if they import."""
    packages: Graph = defaultdict(set)
    for module, imported in graph.items():
        source = package_of(module)
        targets = {package_of(m) for m in imported} - {source, *ROOTS}
        if source not in ROOTS or targets:
            packages[source] |= targets
    return dict(packages)
