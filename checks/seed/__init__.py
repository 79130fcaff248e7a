"""Synthetic rows at a profile's volume, loaded fast, for audit and trace."""

from agentddl.checks.seed.load import SeedStats, seed_model
from agentddl.checks.seed.plan import SeedPlan, plan_seed

__all__ = ["SeedPlan", "SeedStats", "plan_seed", "seed_model"]
