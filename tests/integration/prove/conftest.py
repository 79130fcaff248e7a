"""One pool of prove worker processes for every prove test: the processes start once
(a spawned interpreter costs about half a second of CPU) and are pointed at each test's
database in turn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentddl.checks.prove import Pool


@pytest.fixture(scope="session")
def prove_pool() -> Iterator[Pool]:
    pool = Pool(3)
    try:
        yield pool
    finally:
        pool.close()
