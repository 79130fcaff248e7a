"""Walking pglast trees: every node below one, optionally not into sub-selects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast


def children(node: Any) -> list[Any]:
    """A node's fields that may hold nodes (scalars and locations skipped)."""
    slots: dict[str, Any] = getattr(type(node), "__slots__", {})
    return [getattr(node, name) for name in slots if name != "location"]


def nodes(value: Any, *, into_sublinks: bool = True) -> Iterator[Any]:
    """Every pglast node in `value` (itself included); a SubLink is yielded but, unless
    `into_sublinks`, not entered."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, ast.Node):
            yield item
            if into_sublinks or not isinstance(item, ast.SubLink):
                stack.extend(children(item))
