"""Reading a file the user named on the command line: its text, or one line saying why not."""

from __future__ import annotations

from pathlib import Path


def read_text(path: Path) -> str:
    """The file's UTF-8 text; a missing, unreadable or non-UTF-8 file is an AgentDDLError
    naming the file (and, for bad bytes, where they are)."""
    from agentddl.generator.errors import AgentDDLError

    try:
        data = path.read_bytes()
    except OSError as error:
        raise AgentDDLError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise AgentDDLError(f"{path}:{line}: not UTF-8 text (byte 0x{data[error.start]:02x})") from None
