"""The docs site's reference pages, generated from the code: every rule of every family
(from its docstring), the profile reference, each command's `--help` and the import graph
of the packages on the architecture page, kept current by
`python -m agentddl.checks.docs [--check]`."""
