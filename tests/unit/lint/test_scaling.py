"""Big migrations lint in linear time: rules must not re-scan earlier statements."""

from __future__ import annotations

import time

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.types import Runner

STATEMENTS = 5_000
BUDGET_S = 30.0  # measured 0.5-1 s either way (6 s at load 12 on 2 cores); the quadratic code took minutes


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


@pytest.mark.parametrize("runner", ["psql", "alembic"])
def test_five_thousand_statements_lint_in_linear_time(runner: Runner) -> None:
    text = _migration(STATEMENTS)
    if runner == "alembic":  # no BEGIN/COMMIT: the whole file is Alembic's one transaction
        text = "\n".join(line for line in text.splitlines() if line not in ("BEGIN;", "COMMIT;"))
    start = time.perf_counter()
    findings = lint(text, "big.sql", LintConfig(runner=runner))
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET_S, f"{STATEMENTS} statements took {elapsed:.1f} s"
    codes = {finding.name for finding in findings}
    assert {"require-concurrent-index-creation", "unbatched-backfill"} <= codes
    assert "access-exclusive-with-slow-work" in codes  # the UPDATE after ADD COLUMN
    # Every index on a pre-existing table is flagged; none on the tables made here.
    flagged = [f for f in findings if f.name == "require-concurrent-index-creation"]
    assert len(flagged) == STATEMENTS // 10
