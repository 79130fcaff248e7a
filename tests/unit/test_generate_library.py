"""`agentddl generate` as a library call (`checks.diff.generate.run_generate`): the CLI
only parses options, calls it and prints a summary of its result."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.diff.generate import GenerateRequest, run_generate
from agentddl.generator.errors import AgentDDLError

PROFILE = Path(__file__).parents[2] / "schemas" / "default.yaml"


def test_the_first_run_writes_every_file_and_the_next_writes_none(tmp_path: Path) -> None:
    first = run_generate(GenerateRequest(PROFILE, tmp_path))
    assert first.generation.revision is not None and first.generation.revision in first.written
    assert {"schema.sql", "queries.sql"} <= set(first.written)
    assert all((tmp_path / path).read_text(encoding="utf-8") == text for path, text in first.written.items())
    again = run_generate(GenerateRequest(PROFILE, tmp_path))
    assert again.generation.revision is None and again.written == {}
    checked = run_generate(GenerateRequest(PROFILE, tmp_path, check=True))
    assert checked.written == {} and set(checked.generation.files) >= {"schema.sql"}


def test_the_cli_writes_what_the_library_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library, cli = tmp_path / "library", tmp_path / "cli"
    written = run_generate(GenerateRequest(PROFILE, library)).written
    assert main(["generate", str(PROFILE), "--out", str(cli)]) == 0
    assert f"and {len(written) - 1} other file(s) to {cli}" in capsys.readouterr().out
    on_disk = {str(p.relative_to(cli)): p.read_text(encoding="utf-8") for p in cli.rglob("*") if p.is_file()}
    assert on_disk == written


def test_server_without_dsn_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(AgentDDLError, match="give --dsn too"):
        run_generate(GenerateRequest(tmp_path / "missing.yaml", tmp_path, server="postgresql://x@h/db"))
