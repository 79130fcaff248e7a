"""`agentddl prove`: the schema's guarantees under concurrent workers and crashes.

prove() installs a profile's schema (or takes one already in a database), starts worker
processes that run only the named queries of queries.sql, drives seven scenarios (claim
race, crash mid-step, stale writer, idempotency, outbox, tenant isolation, version
races) and reports each as held or broken, from what it observed.
"""

from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.result import ProveReport, ScenarioResult
from agentddl.checks.prove.run import prove, prove_model
from agentddl.checks.prove.scenarios import SCENARIOS

__all__ = ["SCENARIOS", "ProveOptions", "ProveReport", "ScenarioResult", "prove", "prove_model"]
