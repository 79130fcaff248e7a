"""`agentddl prove`: the schema's guarantees under concurrent workers and crashes."""
