"""`agentddl diff`: what changing a schema from one profile to another takes, step by step:
the lock each step takes, whether it reads or rewrites the table, how long it runs; the
changes with no online form, with their plan. Between two profiles (pure), or from a live
database's catalog to a profile."""

from agentddl.checks.diff.run import DiffRequest, DiffResult, run

__all__ = ["DiffRequest", "DiffResult", "run"]
