"""Profile changes as online migration steps: the delta between two schema models."""

from agentddl.generator.delta.compute import compute_delta, delta_between
from agentddl.generator.delta.types import Delta, Refusal, RefusedChange, Step

__all__ = ["Delta", "Refusal", "RefusedChange", "Step", "compute_delta", "delta_between"]
