"""Writing artifacts to disk: all files or none, each replaced atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agentddl.generator.errors import AgentDDLError, DriftError


def _file_mode() -> int:
    """What open() would give a new file: 0666 less the umask (mkstemp's temp is 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_files(files: dict[str, str], out_dir: Path) -> list[Path]:
    """Write every file via temp file + rename; on failure, nothing is replaced."""
    staged: list[tuple[Path, Path]] = []
    mode = _file_mode()
    try:
        for relative, text in files.items():
            target = out_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.chmod(temp_name, mode)
            staged.append((Path(temp_name), target))
    except OSError as error:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        raise AgentDDLError(f"cannot write to {out_dir}: {error.strerror}") from None
    for temp, target in staged:
        os.replace(temp, target)
    return [target for _, target in staged]


def check_files(files: dict[str, str], out_dir: Path) -> None:
    """Raise DriftError naming every file that differs from what would be written."""
    stale = [
        relative
        for relative, text in files.items()
        if not (out_dir / relative).is_file() or (out_dir / relative).read_text(encoding="utf-8") != text
    ]
    if stale:
        raise DriftError(f"out of date in {out_dir}: {', '.join(stale)} (run `agentddl generate`)")
