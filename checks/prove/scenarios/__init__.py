"""The scenarios prove runs, one module each, with the coordinator's `run(ctx)` and the
workers' `work_<action>` functions side by side.

A scenario module declares itself once: `SCENARIO = Scenario(NAME, order=..., guarded=...)`,
the counts it guards with what each counts (every one must be zero for the scenario to
hold). Its rule (`prove/rules/`) names that declaration, and the rule's page lists the
guarded counts from it. `SCENARIOS` and `HOT_SCENARIOS` (the names, in the order prove
runs them) are read from the declarations: adding a module is all it takes.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Scenario:
    """What a scenario is, declared in its module."""

    name: str  # its module under agentddl.checks.prove.scenarios
    order: int  # where prove runs it, among the others of its kind
    guarded: Mapping[str, str]  # count -> what it counts; the scenario holds when each is 0
    hot: bool = False  # the hot projection's (runs after the others, with hot_state.store: redis)
    own_server: bool = False  # kills the server or starts a pooler: only on one prove started itself
    available: Callable[[], bool] = lambda: True  # what it starts is installed (else left out by default)

    @property
    def run_order(self) -> tuple[bool, int]:
        return (self.hot, self.order)


@cache
def declared() -> tuple[Scenario, ...]:
    """Every scenario module's declaration, in the order prove runs them. A declaration
    named unlike its module, or two with one order, is a bug (RuntimeError)."""
    found: list[Scenario] = []
    for info in pkgutil.iter_modules(__path__):
        scenario = getattr(importlib.import_module(f"{__name__}.{info.name}"), "SCENARIO", None)
        if not isinstance(scenario, Scenario):
            continue  # a helper module (base, tenant_probes)
        if scenario.name != info.name:
            raise RuntimeError(f"{__name__}.{info.name} declares scenario {scenario.name!r}")
        found.append(scenario)
    orders = [s.run_order for s in found]
    if len(set(orders)) != len(orders):
        raise RuntimeError(f"two scenarios share an order: {sorted(orders)}")
    return tuple(sorted(found, key=lambda s: s.run_order))


def __getattr__(name: str) -> tuple[str, ...]:
    """SCENARIOS: the names of the scenarios every profile runs; HOT_SCENARIOS: those of the
    hot projection, run after them when the profile has `hot_state.store: redis`. Read on
    first use (the modules import this package: it must not import them back first)."""
    if name == "SCENARIOS":
        return tuple(s.name for s in declared() if not s.hot)
    if name == "HOT_SCENARIOS":
        return tuple(s.name for s in declared() if s.hot)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
