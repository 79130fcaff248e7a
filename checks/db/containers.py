"""A PostgreSQL server in a Docker container (testcontainers), where a Docker engine answers."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

from agentddl.generator.errors import AgentDDLError

DOCKER_SOCKET = Path("/var/run/docker.sock")
DEFAULT_IMAGE_MAJOR = 18


def docker_engine_answers() -> bool:
    """Cheap check before importing testcontainers: DOCKER_HOST set, or the socket pings."""
    if os.environ.get("DOCKER_HOST"):
        return True
    if not DOCKER_SOCKET.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            sock.connect(str(DOCKER_SOCKET))
            sock.sendall(b"GET /_ping HTTP/1.0\r\n\r\n")
            return b" 200 " in sock.recv(64)
    except OSError:
        return False


def start_container(version: int | None) -> tuple[str, Callable[[], None]]:
    """Start postgres:<major> and return (admin DSN, stop function)."""
    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError as error:
        raise AgentDDLError(
            "a Docker engine answers but testcontainers is not installed: "
            "pip install 'agentddl[docker]'"
        ) from error
    major = version or DEFAULT_IMAGE_MAJOR
    container = PostgresContainer(
        f"postgres:{major}",
        username="postgres",
        password="agentddl",
        dbname="postgres",
        driver=None,
    )
    try:
        container.start()
    except Exception as error:  # docker's errors share no useful base class
        raise AgentDDLError(f"could not start a PostgreSQL {major} container: {error}") from error
    host, port = container.get_container_host_ip(), container.get_exposed_port(5432)
    return f"postgresql://postgres:agentddl@{host}:{port}/postgres", container.stop
