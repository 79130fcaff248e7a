"""Reading a file the user named on the command line: its text (or the profile it holds),
or one line saying why not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentddl.generator.profile import Profile


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


def read_optional(path: Path | None) -> str | None:
    """`read_text` of an optional file option (None when it was not given)."""
    return None if path is None else read_text(path)


def required_profile(path: Path | None, command: str, purpose: str) -> Profile:
    """The --profile a command cannot run without, loaded; its absence is one line."""
    from agentddl.generator.errors import AgentDDLError
    from agentddl.generator.profile import load_profile

    if path is None:
        raise AgentDDLError(f"{command} needs --profile: {purpose}")
    return load_profile(path)
