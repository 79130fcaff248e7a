"""What the workers saw and did outside the database: one append-only JSON-lines file per
worker process.

The journal is the prove suite's "outside world": effects performed (an API call the
idempotency key should make happen once), messages a consumer received, claims a worker
held. Each line is one os.write on an O_APPEND descriptor, so a line that was written
survives the SIGKILL that follows it; a torn last line (a kill mid-write) is skipped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Journal:
    """The writing side, in a worker process."""

    def __init__(self, directory: str, slot: int) -> None:
        path = Path(directory) / f"worker-{slot}-{os.getpid()}.jsonl"
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.slot = slot
        self.scenario = ""

    def close(self) -> None:
        os.close(self._fd)

    def write(self, kind: str, **fields: Any) -> None:
        line = {"kind": kind, "scenario": self.scenario, "slot": self.slot, "at": time.monotonic(), **fields}
        os.write(self._fd, (json.dumps(line, default=str) + "\n").encode())


def read_journal(directory: str, scenario: str) -> list[dict[str, Any]]:
    """Every complete line any worker wrote for `scenario`, in time order."""
    lines = [line for path in sorted(Path(directory).glob("*.jsonl")) for line in _lines(path)]
    return sorted((line for line in lines if line.get("scenario") == scenario), key=lambda x: x["at"])


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for raw in path.read_bytes().splitlines():
        try:
            yield json.loads(raw)
        except ValueError:  # the torn last line of a killed worker
            continue
