"""Big migrations lint in linear time: rules must not re-scan earlier statements. Linear is
measured, not budgeted: 4N statements must take at most MAX_RATIO times as long as N in
the same test (linear: 4x; re-scanning, quadratic: 16x), so the verdict does not depend on
how fast or how busy the machine is. What is timed is the linting's own work: this
process's CPU time (wall time on a busy machine is mostly other processes' turns: a
0.5 s run catches a quiet moment more often than a 5 s one, and the ratio of wall times
came out 10x for linear code at load 10), with the cyclic garbage collector paused (its
passes grow with everything alive in the test process, not with the linter), each size
ROUNDS times, alternately, its fastest kept."""

from __future__ import annotations

import gc
import time

import pytest

from agentddl.checks.core.findings import Finding
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.types import Runner

STATEMENTS = 5_000  # 4N (the quadratic code took minutes; linear: 0.5-1 s)
SMALL = STATEMENTS // 4  # N
MAX_RATIO = 8.0
ROUNDS = 3


def _migration(count: int) -> str:
    """`count` statements cycling through DDL, DML, settings and transaction blocks."""
    lines: list[str] = []
    for n in range(count // 10):
        table = f"agent.t{n % 50}"
        lines += [
            "BEGIN;",
            f"CREATE TABLE agent.new_{n} (id bigint PRIMARY KEY, a text);",
            f"CREATE INDEX idx_new_{n} ON agent.new_{n} (a);",
            f"CREATE INDEX idx_old_{n} ON {table} (a);",
            f"ALTER TABLE {table} ADD COLUMN c{n} text;",
            f"UPDATE {table} SET a = 'x';",
            "SET lock_timeout = '2s';" if n % 2 else "SET LOCAL lock_timeout = '1s';",
            f"ALTER TABLE {table} ADD CONSTRAINT ck{n} CHECK (a IS NOT NULL) NOT VALID;",
            f"ALTER TABLE {table} ALTER COLUMN c{n} TYPE varchar(20);",
            "COMMIT;",
        ]
    return "\n".join(lines) + "\n"


def _text(count: int, runner: Runner) -> str:
    text = _migration(count)
    if runner == "alembic":  # no BEGIN/COMMIT: the whole file is Alembic's one transaction
        text = "\n".join(line for line in text.splitlines() if line not in ("BEGIN;", "COMMIT;"))
    return text


def _timed(text: str, runner: Runner) -> tuple[float, list[Finding]]:
    """CPU seconds of one lint, the garbage collector paused."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        findings = lint(text, "big.sql", LintConfig(runner=runner))
        return time.process_time() - start, findings
    finally:
        gc.enable()


@pytest.mark.parametrize("runner", ["psql", "alembic"])
def test_five_thousand_statements_lint_in_linear_time(runner: Runner) -> None:
    small, large = _text(SMALL, runner), _text(STATEMENTS, runner)
    times: dict[str, list[float]] = {"small": [], "large": []}
    for _ in range(ROUNDS):
        times["small"].append(_timed(small, runner)[0])
        seconds, findings = _timed(large, runner)
        times["large"].append(seconds)
    ratio = min(times["large"]) / min(times["small"])
    assert ratio <= MAX_RATIO, f"{STATEMENTS} statements took {ratio:.1f}x as long as {SMALL}: {times}"
    codes = {finding.name for finding in findings}
    assert {"require-concurrent-index-creation", "unbatched-backfill"} <= codes
    assert "access-exclusive-with-slow-work" in codes  # the UPDATE after ADD COLUMN
    # Every index on a pre-existing table is flagged; none on the tables made here.
    flagged = [f for f in findings if f.name == "require-concurrent-index-creation"]
    assert len(flagged) == STATEMENTS // 10
