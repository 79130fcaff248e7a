"""delta(old profile, new profile): the online steps from one schema to the other, in
expand/contract order, or the changes refused. Pure: model to model, no database."""

from __future__ import annotations

from collections.abc import Callable

from agentddl.generator.delta.access import grant_steps, role_steps
from agentddl.generator.delta.constraints import constraint_steps
from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.created import created_steps
from agentddl.generator.delta.functions import function_steps, partition_steps
from agentddl.generator.delta.identity import identity_steps
from agentddl.generator.delta.indexes import index_steps
from agentddl.generator.delta.inventory import differences, inventory
from agentddl.generator.delta.layout import layout_changes, layout_notes, layout_steps
from agentddl.generator.delta.notes import operator_notes
from agentddl.generator.delta.refusals import profile_refusals
from agentddl.generator.delta.tables import table_steps
from agentddl.generator.delta.types import PHASES, Delta, Difference, Refusal, Step
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.model.layout import LAYOUT
from agentddl.generator.profile import Profile
from agentddl.generator.profile.canonical import changed_keys, describe_change

# Within a phase, steps keep this order: roles before the grants and policies naming them.
BUILDERS: tuple[Callable[[Context], Outcome], ...] = (
    role_steps,
    function_steps,
    grant_steps,
    index_steps,
    constraint_steps,
    identity_steps,
    partition_steps,
    table_steps,
)


def compute_delta(old: Profile, new: Profile, old_layout: int = LAYOUT, new_layout: int = LAYOUT) -> Delta:
    """The steps from `old`'s schema to `new`'s; refusals instead when one has no online
    form. The layouts (model/layout.py): what each side was or will be rendered in."""
    changes = changed_keys(old, new)
    described = tuple(describe_change(k, v) for k, v in changes.items())
    described += layout_changes(old_layout, new_layout)
    refused = profile_refusals(old, new)
    if refused:
        return Delta(described, (), refusals=refused)
    old_model, new_model = derive(old, old_layout), derive(new, new_layout)
    delta = delta_between(old_model, new_model)
    notes = operator_notes(old_model, new_model, changes) + layout_notes(old_layout, new_layout)
    steps = _by_phase(delta.steps + layout_steps(new_model, old_layout))
    return Delta(described, steps, notes, delta.refusals)


def _by_phase(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    return tuple(sorted(steps, key=lambda step: PHASES.index(step.phase)))


def delta_between(old: SchemaModel, new: SchemaModel) -> Delta:
    """The steps from one schema model to another (no profile-level refusals)."""
    return steps_for(old, new, differences(inventory(old), inventory(new)))


def steps_for(old: SchemaModel, new: SchemaModel, found: tuple[Difference, ...]) -> Delta:
    """The steps for given differences (from two models, or from a live catalog: then
    `old` is `new`, and each difference's old side is what the catalog holds)."""
    # New tables and nullable columns: created whole (none of their objects is another
    # builder's) before what uses them; dropped after what depends on them is gone.
    created = created_steps(Context(old, new, found))
    outcome = Outcome(handled=set(created.handled))
    outcome.steps += [s for s in created.steps if s.phase != "contract"]
    context = Context(old, new, tuple(d for d in found if d.key not in created.handled))
    for builder in BUILDERS:
        outcome.merge(builder(context))
    outcome.steps += [s for s in created.steps if s.phase == "contract"]
    leftover = [d for d in found if d.key not in outcome.handled]
    refusals = (*outcome.refusals, *(_unhandled(d) for d in leftover))
    steps = sorted(outcome.steps, key=lambda step: PHASES.index(step.phase))
    return Delta((), tuple(steps), refusals=tuple(refusals))


def _unhandled(difference: Difference) -> Refusal:
    kind, table, name = difference.key
    what = " ".join(part for part in (kind, f"{table}.{name}".strip(".")) if part)
    return Refusal(
        what,
        f"{what} changes",
        "agentddl has no online recipe for this object",
        (
            "expand: create the new form beside the old one",
            "switch: move the application to it",
            "contract: drop the old one",
            "record the profile: `agentddl generate PROFILE --out DIR --dsn DB`",
        ),
    )
