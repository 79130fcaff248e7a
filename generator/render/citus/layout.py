"""Names the Citus rendering shares: its file and the table that opens the co-location
group. What is distributed and how many shards: the model decides (model/distribution.py)."""

from __future__ import annotations

CITUS_FILE = "citus.sql"
MAINTAIN = "maintain_time_partitions"  # citus.sql's procedure: Citus's own partition functions
ANCHOR = "runs"  # first table of the co-location group; every other distributed table joins it
