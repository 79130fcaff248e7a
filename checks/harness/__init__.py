"""A real PostgreSQL server for agentddl: a given DSN, an embedded one, or a container."""

from agentddl.checks.harness.installations import find_installations
from agentddl.checks.harness.provision import open_server
from agentddl.checks.harness.server import PostgresServer

__all__ = ["PostgresServer", "find_installations", "open_server"]
