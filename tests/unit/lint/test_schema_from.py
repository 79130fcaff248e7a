"""`agentddl lint --schema-from schema.sql | PROFILE`: the linter knows the schema before
the migration. It catches what only the schema shows (a primary key over a nullable
column, a shrinking type), stays quiet on changes that change nothing (the same type,
SET NOT NULL on a NOT NULL column); with `--sizes-from` (never from --schema-from) it
scales size-dependent findings (an index build on a small table is info). The
live-database source: tests/integration/lint/test_schema_from_db.py. A revision the
linter could not read fails the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint_schema_case import MIGRATION, SCHEMA_ONLY, SCHEMA_SQL, THRESHOLDS, WITH_SCHEMA, WITHOUT_SCHEMA

from agentddl.checks.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
PROFILE_MIGRATION = """\
SET lock_timeout = '2s';
ALTER TABLE agent.outbox DROP CONSTRAINT outbox_pkey, ADD PRIMARY KEY (tenant_id, claimed_by);
ALTER TABLE agent.outbox ALTER COLUMN topic TYPE varchar(100);
ALTER TABLE agent.outbox ALTER COLUMN delivery_attempts TYPE integer;
ALTER TABLE agent.outbox ALTER COLUMN topic SET NOT NULL;
CREATE INDEX runs_kind_idx ON agent.runs (kind);
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentddl.toml").write_text(THRESHOLDS)
    return tmp_path


def findings(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, set[tuple[int, str, str]]]:
    code = main(["lint", *args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    return code, {(f["line"], f["name"], f["severity"]) for f in report["findings"]}


def test_a_schema_sql_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "schema.sql").write_text(SCHEMA_SQL)
    (project / "m.sql").write_text(MIGRATION)
    sized = ("--schema-from", "schema.sql", "--sizes-from", "schema.sql")
    assert findings(capsys, "m.sql", *sized) == (1, WITH_SCHEMA)
    assert findings(capsys, "m.sql", "--schema-from", "schema.sql") == (1, SCHEMA_ONLY)
    assert findings(capsys, "m.sql") == (1, WITHOUT_SCHEMA)


def test_sizes_from_the_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`table_rows` in the config: production's row counts without a database."""
    (project / "agentddl.toml").write_text(
        THRESHOLDS + 'table_rows = { "public.regions" = 20, orders = 5000 }\n'
    )
    (project / "schema.sql").write_text(SCHEMA_SQL)
    (project / "m.sql").write_text(MIGRATION)
    assert findings(capsys, "m.sql", "--schema-from", "schema.sql") == (1, WITH_SCHEMA)
    main(["lint", "m.sql", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["sizes"] == "config (agentddl.toml)"
    severities = {(f["line"], f["severity"]) for f in report["findings"] if f["line"] == 6}
    assert severities == {(6, "info")}, "config sizes apply without --schema-from too"


def test_a_bad_table_rows_entry_is_a_config_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "agentddl.toml").write_text('table_rows = { "public.orders" = "many" }\n')
    (project / "m.sql").write_text(MIGRATION)
    assert main(["lint", "m.sql"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("agentddl: ") and "table_rows.public.orders: must be a row count" in error
    assert "\n" not in error


def test_a_profile(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A profile's tables are sized from its volume and retention: 10 runs a day kept a
    year is 3,650 runs (small under these thresholds); a step a second, delivered
    messages kept 3 days, is 259,200 outbox rows (large)."""
    default = (ROOT / "schemas" / "default.yaml").read_text()
    volume = "volume: {steps_per_second: 200, runs_per_day: 100000,"
    small = default.replace(volume, "volume: {steps_per_second: 1, runs_per_day: 10,")
    assert small != default
    (project / "small.yaml").write_text(small)
    thresholds = "table_size = { info_below_rows = 5000, warning_below_rows = 100000 }\n"
    (project / "agentddl.toml").write_text(thresholds)
    (project / "m.sql").write_text(PROFILE_MIGRATION)
    assert findings(capsys, "m.sql", "--schema-from", "small.yaml", "--sizes-from", "small.yaml") == (
        1,
        {
            (2, "set-not-null-requires-check", "error"),  # claimed_by is nullable
            (2, "not-null-over-nulls", "warning"),  # ... and may hold NULLs
            (2, "unique-over-duplicates", "warning"),  # the new key may have duplicates
            (2, "require-unique-using-index", "error"),
            (3, "column-type-change-rewrites", "error"),  # text into varchar(100)
            (6, "require-concurrent-index-creation", "info"),  # 3,650 runs
        },
    )


def test_the_report_names_the_schema_and_the_size(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "schema.sql").write_text(SCHEMA_SQL)
    (project / "m.sql").write_text(MIGRATION)
    main(["lint", "m.sql", "--schema-from", "schema.sql", "--sizes-from", "schema.sql", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (report["schema_from"], report["sizes"]) == ("schema.sql", "schema.sql")
    info = next(f for f in report["findings"] if f["severity"] == "info")
    assert "public.regions holds about 20 rows, 8 kB" in info["message"]
    main(["lint", "m.sql", "--schema-from", "schema.sql"])
    assert "sizes: none" in capsys.readouterr().out


def test_unusable_sources_are_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "m.sql").write_text(MIGRATION)
    (project / "broken.sql").write_text("CREATE TABLE t (a int);\nCREATE TABEL u (b int);\n")
    assert main(["lint", "m.sql", "--schema-from", "nope.sql"]) == 2
    assert capsys.readouterr().err.strip() == "agentddl: nope.sql: no such file"
    assert main(["lint", "m.sql", "--schema-from", "broken.sql"]) == 2
    assert capsys.readouterr().err.strip().startswith("agentddl: broken.sql:2:8: syntax error")
    assert main(["lint", "m.sql", "--sizes-from", "nope.sql"]) == 2
    assert capsys.readouterr().err.strip() == "agentddl: nope.sql: no such file"
    assert main(["lint", "m.sql", "--sizes-from", "postgresql://nobody@127.0.0.1:9/none"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("agentddl: cannot connect to PostgreSQL at 127.0.0.1:9/none")
    assert "\n" not in error


REVISION = """\
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade():
    ids = op.get_bind().execute(sa.text("SELECT id FROM agent.runs")).fetchall()
    op.create_index("runs_kind_idx", "runs", ["kind"], schema="agent")
"""


def test_a_revision_that_cannot_be_read_fails(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "0003_data.py").write_text(REVISION)
    code = main(["lint", "0003_data.py"])
    out = capsys.readouterr().out
    assert code == 1
    assert "0003_data.py:9:5: error ADL003 [unreadable-revision]" in out
    assert "this line and everything after it in upgrade() were not linted" in out
