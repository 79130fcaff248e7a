"""Process plumbing the families share: worker pools that must not die of the user's Ctrl-C."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while child processes start (they inherit it): Ctrl-C then stops the
    coordinator, which stops its children in order. Off the main thread, nothing to do."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
