"""Progress of long work (seeding, matrices, scenarios), reported as short lines.

Library functions take a `Progress` callback and call it with a line such as "seeded
events: 400,000 rows"; the CLI shows the lines as a live status on a terminal and as
plain lines on stderr otherwise (CI logs), so a long run is never silent.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]


def silent(message: str) -> None:
    """The default: library callers that want no progress."""
