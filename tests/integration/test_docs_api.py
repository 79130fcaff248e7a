"""The Python API page (docs/api.md) runs as written: its python blocks, in order, in one
namespace, from the repository root; the setup block's `SERVER = None` becomes the test
server (a None would start an embedded server per example)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from profiles import ROOT

from agentddl.checks.db import PostgresServer

API_PAGE = ROOT / "docs" / "api.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
Namespace = dict[str, Any]


def document(out: str) -> Any:
    """The JSON document a block printed after its own lines."""
    return json.loads(out[out.index("{\n") :])


def _lint(ns: Namespace, out: str) -> None:
    assert {f.code for f in ns["result"].findings} >= {"ADL209"}  # int -> bigint rewrites
    assert document(out)["tool"] == "lint"


def _verify(ns: Namespace, out: str) -> None:
    assert ns["verify"].build_report(ns["result"]).exit_code == 0, out


def _apply(ns: Namespace, out: str) -> None:
    assert ns["verify"].build_apply_report(ns["applied"]).exit_code == 0, out


def _trace(ns: Namespace, out: str) -> None:
    (statement,) = ns["result"].statements
    assert "public.orders" in statement.rewritten
    assert document(out)["version"] == "2.1.0"


def _audit(ns: Namespace, out: str) -> None:
    assert ns["result"].passed and ns["result"].paths, out
    assert "## agentddl audit" in out


def _prove(ns: Namespace, out: str) -> None:
    assert ns["result"].held and ns["result"].broken == []
    assert document(out)["tool"] == "prove"


def _generate(ns: Namespace, out: str) -> None:
    assert set(ns["files"]) >= {"schema.sql", "queries.sql", "PLAN.md"}


def _gate(ns: Namespace, out: str) -> None:
    verdicts = [step.verdict for step in ns["result"].steps]
    assert verdicts == ["failed", "skipped", "skipped", "skipped"] and ns["result"].exit_code == 1
    assert out.splitlines()[0].startswith("lint: failed: ") and "## agentddl check" in out


CHECKS: dict[str, Callable[[Namespace, str], None]] = {
    "lint": _lint,
    "verify": _verify,
    "apply": _apply,
    "trace": _trace,
    "audit": _audit,
    "prove": _prove,
    "generate": _generate,
    "gate": _gate,
}


def block_name(code: str) -> str:
    """Which example a block is: the family it imports (apply: run_apply; generate: the generator)."""
    if "run_apply" in code:
        return "apply"
    if "render_artifacts" in code:
        return "generate"
    found = re.search(r"from agentddl\.checks import (\w+)", code)
    assert found, f"an example that imports no family:\n{code}"
    return found.group(1)


def test_every_example_on_the_api_page_runs(
    pg_server_latest: PostgresServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup, *examples = BLOCK.findall(API_PAGE.read_text(encoding="utf-8"))
    assert "SERVER = None" in setup
    monkeypatch.chdir(ROOT)
    namespace: Namespace = {}
    exec(setup.replace("SERVER = None", f"SERVER = {pg_server_latest.admin_dsn!r}"), namespace)
    checked = []
    for code in examples:
        name = block_name(code)
        exec(compile(code, f"{API_PAGE}:{name}", "exec"), namespace)
        CHECKS[name](namespace, capsys.readouterr().out)
        checked.append(name)
    assert sorted(checked) == sorted(CHECKS)
