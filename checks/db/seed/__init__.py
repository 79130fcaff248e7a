"""Synthetic rows at a profile's volume, loaded fast, for audit and trace."""

from agentddl.checks.db.seed.load import SeedStats, seed_model
from agentddl.checks.db.seed.plan import SeedPlan, plan_seed

__all__ = ["SeedPlan", "SeedStats", "plan_seed", "seed_model"]
