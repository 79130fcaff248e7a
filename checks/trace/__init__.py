"""`agentddl trace`: what a migration really locks, rewrites and blocks on a real server."""
