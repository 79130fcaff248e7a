"""`agentddl verify --citus`: a schema checked statically against Citus's rules for
distributed tables (no Citus server needed, none is used): keys hold the distribution
column, foreign keys are co-located, no reference table points at a distributed one,
named queries stay with one tenant, modifications use only functions Citus can run.

Library use: `run(CitusRequest.from_profile(profile)).report()`, or a CitusRequest of
your own schema.sql, citus.sql and query files (each a `Source(path, text)`).
"""

from __future__ import annotations

from agentddl.checks.citus.run import CitusRequest, CitusResult, run
from agentddl.checks.citus.sources import Source

__all__ = ["CitusRequest", "CitusResult", "Source", "run"]
