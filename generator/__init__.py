"""agentddl.generator: profile -> schema model -> rendered artifacts."""
