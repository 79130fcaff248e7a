"""Progress lines for the CLI: a live status on a terminal, plain lines on stderr otherwise
(CI logs), at most one line every `PLAIN_INTERVAL_SECONDS` unless the stage changes.

Nothing is shown until the library reports its first line (the inputs were read, the
server answered), so a usage, input or connection error stays the one line on stderr.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

PLAIN_INTERVAL_SECONDS = 2.0


@contextlib.contextmanager
def progress() -> Iterator[Callable[[str], None]]:
    """A Progress callback for the duration of a with-block."""
    with contextlib.ExitStack() as stack:
        shown: list[Callable[[str], None]] = []

        def report(message: str) -> None:
            if shown:
                shown[0](message)
            else:
                shown.append(stack.enter_context(_display(message)))

        yield report


@contextlib.contextmanager
def _display(first: str) -> Iterator[Callable[[str], None]]:
    if sys.stderr.isatty():
        from rich.console import Console

        with Console(stderr=True).status(first) as status:
            yield lambda message: status.update(message)
        return
    last_stage, last_at = [""], [0.0]

    def plain(message: str) -> None:
        stage, now = message.split(":", 1)[0], time.monotonic()
        if stage != last_stage[0] or now - last_at[0] >= PLAIN_INTERVAL_SECONDS:
            print(f"agentddl: {message}", file=sys.stderr, flush=True)
            last_stage[0], last_at[0] = stage, now

    plain(first)
    yield plain
