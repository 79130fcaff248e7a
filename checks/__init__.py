"""agentddl.checks: lint, live database checks, audit and prove; also hosts the CLI."""
