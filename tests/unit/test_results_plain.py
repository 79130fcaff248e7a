"""A family's result is plain data: importing it loads neither its report nor the
reporters' rich (`report.build_report(result)` turns it into the core Report)."""

from __future__ import annotations

import subprocess
import sys

import pytest

RESULTS = ("audit", "bench", "diff", "trace", "verify")


def imported_modules(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("family", RESULTS)
def test_importing_a_result_loads_no_report(family: str) -> None:
    modules = imported_modules(f"agentddl.checks.{family}.result")
    assert "rich" not in modules
    assert f"agentddl.checks.{family}.report" not in modules
