"""Catalog rules more than one family runs: the rule model of every verify rule
(`types`) and the index rules ADV101-ADV104, which `agentddl verify` reports and
`agentddl audit` adds to its own index findings (`indexes.index_findings`).

A shared layer, below the families and above the database layer: the families never
import each other, so what two of them run lives here, once.
"""
