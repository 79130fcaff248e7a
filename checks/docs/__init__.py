"""The docs site's reference pages, generated from the code: every rule of every family
(from its docstring), kept current by `python -m agentddl.checks.docs [--check]`."""
