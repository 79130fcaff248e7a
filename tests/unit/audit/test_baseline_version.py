"""The plan baseline carries its format's `schema_version`: baselines written by 0.1.0
(none) and by any 1.x are read; another major is one line naming the file's position,
exit code 2, before any server is started."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentddl.checks.audit.baseline import BASELINE_VERSION, read_baseline
from agentddl.checks.cli.main import main
from agentddl.generator.errors import AgentDDLError

PLAN = {"get": {"node": "Index Scan using runs_pkey on runs", "indexes": ["runs_pkey"], "cost": 8.0}}


def _written(tmp_path: Path, **keys: object) -> Path:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"baseline": 1, **keys, "paths": PLAN}, indent=2) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("keys", [{}, {"schema_version": BASELINE_VERSION}, {"schema_version": "1.7"}])
def test_a_baseline_of_this_major_or_of_0_1_0_is_read(tmp_path: Path, keys: dict[str, object]) -> None:
    assert read_baseline(_written(tmp_path, **keys))["paths"] == PLAN


@pytest.mark.parametrize("version", ["2.0", "10.1", 1])
def test_a_baseline_of_another_major_is_refused_at_its_version(tmp_path: Path, version: object) -> None:
    path = _written(tmp_path, schema_version=version)
    expected = f"{path}:3:3: audit baseline schema_version {json.dumps(version)}: expected"
    with pytest.raises(AgentDDLError, match=f"^{re.escape(expected)}"):
        read_baseline(path)


def test_a_bad_query_list_is_refused_at_its_key(tmp_path: Path) -> None:
    path = _written(tmp_path, schema_version=BASELINE_VERSION, queries="queries.sql")
    with pytest.raises(AgentDDLError, match=f'^{re.escape(str(path))}:4:3: "queries": expected a list'):
        read_baseline(path)


def test_the_cli_refuses_it_in_one_line_before_starting_a_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _written(tmp_path, schema_version="2.0")
    before = path.read_bytes()
    assert main(["audit", "--baseline", str(path), "--server", "postgresql://nobody@127.0.0.1:1/x"]) == 2
    err = capsys.readouterr().err
    expected = f'{path}:3:3: audit baseline schema_version "2.0": expected "1.x" (write it again with'
    assert err == f"agentddl: {expected} --update-baseline)\n"
    assert path.read_bytes() == before
