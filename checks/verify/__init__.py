"""`agentddl verify`: a live schema's invariants, read from pg_catalog."""
