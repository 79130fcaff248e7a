"""The error hierarchy. The CLI turns these into a short message and exit code 2."""

from __future__ import annotations


class AgentDDLError(Exception):
    """A user-facing failure: bad input, unreachable server, drift. Never a bug.

    The message is one line; `details` are lines the CLI prints after it, indented (e.g.
    the steps of a plan a refused change needs instead)."""

    exit_code = 2
    details: tuple[str, ...] = ()


class ProfileError(AgentDDLError):
    """A profile that cannot be loaded; the message starts with file:line:column."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path, self.line, self.column, self.message = path, line, column, message
        super().__init__(f"{path}:{line}:{column}: {message}")


class DriftError(AgentDDLError):
    """A generated artifact on disk differs from what the generator renders now."""

    exit_code = 1


class CheckFailed(AgentDDLError):
    """A check ran and found problems at error severity."""

    exit_code = 1
