"""`agentddl audit`: every access path served by an index at realistic volume (EXPLAIN)."""
