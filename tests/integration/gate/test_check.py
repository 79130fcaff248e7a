"""`agentddl check` on a database agentddl did not generate: one exit code and one report
for lint, trace on a scratch copy, verify and audit; the database itself only read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import SAFE, UNSAFE, database_state
from git_repo import git, new_repo

from agentddl.checks.cli import main as cli
from agentddl.checks.docs.examples import comparable

ROOT = Path(__file__).resolve().parents[3]

Run = tuple[int, str, str]
# The unsafe migration's errors: the linter's (with the clone's sizes) and what trace saw.
UNSAFE_ERRORS = {"ADL101", "ADL209", "ADT101"}
DROP_INDEX = """SET lock_timeout = '2s';
DROP INDEX CONCURRENTLY public.orders_customer_idx;
"""


APPLIED_REVISION = '''"""the shop, applied long ago"""
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.execute("CREATE TABLE public.customers (id bigint PRIMARY KEY)")
'''
NEW_REVISION = '''"""orders.qty as bigint"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.alter_column("orders", "qty", type_=sa.BigInteger(), schema="public")
'''


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def change_with_baseline(
    project: Path, capsys: pytest.CaptureFixture[str], dsn: str, migration: str, sql: str
) -> None:
    """The change (`sql` as migrations/`migration`), and the plan baseline taken on the
    database itself, as a team keeps it."""
    (project / "migrations" / migration).write_text(sql)
    argv = ["audit", "--dsn", dsn, "--queries", "queries.sql", "--sample", "0", "--baseline", "audit.json"]
    code = cli.main(argv)
    _, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(Path("audit.json").read_text())["queries"] == ["queries.sql"]


def gate(dsn: str, fmt: str, *more: str) -> list[str]:
    """The gate as CI runs it: the workload is the one the baseline was taken with."""
    return ["migrations/", "--clone", dsn, "--baseline", "audit.json", "--format", fmt, *more]


def test_an_unsafe_migration_fails_with_the_errors_first_and_the_clone_untouched(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    change_with_baseline(project, capsys, shop_dsn, "0002_orders.sql", UNSAFE)
    before = database_state(shop_dsn)
    # the shop is production here: its sizes too (20,000 orders: large for this team's config)
    code, out, err = check(capsys, *gate(shop_dsn, "markdown", "--sample", "5000", "--sizes-from", shop_dsn))
    assert code == 1, err
    assert database_state(shop_dsn) == before  # same schema, not one row written
    head, table = out.split("| severity |", 1)
    names = [line[2:].split(":")[0] for line in head.splitlines() if line.startswith("- ")]
    assert names[-4:] == ["lint", "trace", "verify", "audit"]  # after what was checked
    assert "- lint: **failed**" in head and "- trace: **failed**" in head
    assert "- verify: held" in head and "- audit: held" in head
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    severities = [row.split(" | ")[0].removeprefix("| ") for row in rows]
    assert severities[: len(UNSAFE_ERRORS)] == ["error"] * len(UNSAFE_ERRORS)
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert {row.split(" | ")[1].split()[0] for row in rows if row.startswith("| error")} == UNSAFE_ERRORS
    assert out.rstrip().endswith("**check: failed (lint, trace); 4 of 4 steps ran.**")
    assert "public.orders holds about 20,000 rows" in table  # the lint knew production's size


def test_a_safe_migration_passes_and_json_keeps_each_step(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    change_with_baseline(project, capsys, shop_dsn, "0003_placed_idx.sql", SAFE)
    before = database_state(shop_dsn)
    code, out, err = check(capsys, *gate(shop_dsn, "json"))
    assert code == 0, out + err
    assert database_state(shop_dsn) == before
    document = json.loads(out)
    assert document["tool"] == "check"
    steps = {step["step"]: step for step in document["steps"]}
    assert [step["step"] for step in document["steps"]] == ["lint", "trace", "verify", "audit"]
    assert {name: step["verdict"] for name, step in steps.items()} == dict.fromkeys(steps, "held")
    assert document["summary"]["error"] == 0
    # the index really was built on the copy, without blocking writes
    (statement,) = [s for s in steps["trace"]["details"]["statements"] if "CONCURRENTLY" in s["sql"]]
    assert "error" not in statement and not statement["rewritten"]
    # refunds' foreign key had no index before the change: verify does not blame it
    assert "1 finding(s) the clone already has, not counted" in steps["verify"]["summary"]
    assert steps["verify"]["findings"] == []
    assert [p["name"] for p in steps["audit"]["details"]["paths"]] == ["orders_of_customer"]
    every = [f for step in document["steps"] for f in step.get("findings", [])]
    assert sorted(map(json.dumps, every)) == sorted(map(json.dumps, document["findings"]))


def test_the_audit_step_fails_a_change_that_drops_an_index_the_workload_needs(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    change_with_baseline(project, capsys, shop_dsn, "0004_drop.sql", DROP_INDEX)
    code, out, err = check(capsys, *gate(shop_dsn, "json", "--sample", "20000"))
    assert code == 1, err
    steps = {step["step"]: step for step in json.loads(out)["steps"]}
    assert {name: step["verdict"] for name, step in steps.items()} == {
        "lint": "held", "trace": "held", "verify": "held", "audit": "failed",
    }  # fmt: skip
    codes = {f["code"] for f in steps["audit"]["findings"] if f["severity"] == "error"}
    assert "ADA120" in codes  # the baseline's index is gone from the plan


def test_every_format_reports_every_step(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    change_with_baseline(project, capsys, shop_dsn, "0002_orders.sql", UNSAFE)
    code, out, _ = check(capsys, *gate(shop_dsn, "sarif"))
    assert code == 1
    (run,) = json.loads(out)["runs"]
    rules = run["tool"]["driver"]["rules"]
    families = {rule["properties"]["family"] for rule in rules if "properties" in rule}
    assert {"lint", "trace", "verify", "audit"} <= families
    code, out, _ = check(capsys, *gate(shop_dsn, "github"))
    assert code == 1
    assert "::error file=migrations/0002_orders.sql,line=2,col=1,title=ADT101 table-rewrite" in out
    code, out, _ = check(capsys, *gate(shop_dsn, "text"))
    assert code == 1
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["migrations", "clone", "baseline"]
    verdicts = [": ".join(line.split(": ")[:2]) for line in lines[3:7]]
    assert verdicts == ["lint: failed", "trace: failed", "verify: held", "audit: held"]


def test_without_a_clone_only_the_lint_runs(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "migrations" / "0002_orders.sql").write_text(UNSAFE)
    code, out, err = check(capsys, "migrations", "--format", "json")
    assert code == 1, err
    steps = json.loads(out)["steps"]
    assert [s["verdict"] for s in steps] == ["failed", "skipped", "skipped", "skipped"]
    assert steps[1]["summary"] == "no --clone: no schema to apply the migrations to"
    # without the clone's sizes the index build is judged from the SQL alone: still an error
    assert {f["code"] for f in steps[0]["findings"] if f["severity"] == "error"} >= {"ADL101", "ADL209"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--baseline", "audit.json"], "--baseline: these are about the scratch copy: pass --clone DSN"),
        (["--clone", "postgresql://x@127.0.0.1:1/db", "--baseline", "b.json"],
         "--baseline b.json names no query files: pass --queries FILE (its workload)"),
        (["--clone", "postgresql://x@127.0.0.1:1/db", "--queries", "nope.sql"],
         "--queries nope.sql: no such file"),
        (["--clone", "postgresql://x@127.0.0.1:1/db", "--queries", "queries.sql", "--baseline", "bad.json"],
         "bad.json:1:2: not a baseline"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (project / "migrations" / "0002_orders.sql").write_text(UNSAFE)
    (project / "bad.json").write_text("{nope")
    code, out, err = check(capsys, "migrations", *argv)
    assert code == 2
    assert out == "" and len(err.splitlines()) == 1 and message in err, err


def test_alembic_revisions_changed_since_a_ref_are_the_only_ones_checked(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    versions = project / "migrations" / "versions"
    versions.mkdir()
    (versions / "0001_shop.py").write_text(APPLIED_REVISION)  # would fail on the copy: customers exists
    new_repo(project)
    git(project, "add", "migrations")
    git(project, "commit", "-q", "-m", "shop")
    (versions / "0002_qty.py").write_text(NEW_REVISION)  # not committed yet: changed all the same
    (versions / "helpers.py").write_text("BATCH = 1000\n")  # changed too, but no revision
    argv = ["migrations/versions", "--changed-since", "main", "--clone", shop_dsn, "--format", "json"]
    code, out, err = check(capsys, *argv)
    assert code == 1, err
    document = json.loads(out)
    assert document["migrations"] == ["migrations/versions/0002_qty.py"]
    assert document["changed_since"] == "main"
    errors = {(f["code"], f["file"], f["line"]) for f in document["findings"] if f["severity"] == "error"}
    assert errors == {
        ("ADL209", "migrations/versions/0002_qty.py", 10),
        ("ADT101", "migrations/versions/0002_qty.py", 10),
    }
    (trace,) = [step for step in document["steps"] if step["step"] == "trace"]
    assert {s["file"] for s in trace["details"]["statements"]} == {"migrations/versions/0002_qty.py"}
    git(project, "add", "migrations")
    git(project, "commit", "-q", "-m", "qty")
    code, out, err = check(capsys, "migrations/versions", "--changed-since", "HEAD", "--clone", shop_dsn)
    assert code == 0, err
    reason = "no migration added or changed since HEAD"
    assert [line for line in out.splitlines() if reason in line] == [
        f"{step}: skipped: {reason}" for step in ("lint", "trace", "verify", "audit")
    ]


REFRESH_ENV = "AGENTDDL_REFRESH_CHECK_PAGE"  # =1: write the run into check's page instead


def shown_run(page: str, command: str) -> list[str]:
    """The output a page shows under `$ command`, up to the end of its fenced block."""
    text = (ROOT / page).read_text(encoding="utf-8")
    block = text[text.index(f"$ {command}\n") :].split("```", 1)[0]
    return block.splitlines()[1:]


def refresh_page(page: str, command: str, lines: list[str]) -> None:
    """Replace the output shown under `$ command` with `lines` (what the run printed)."""
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    start = text.index(f"$ {command}\n") + len(f"$ {command}\n")
    end = text.index("```", start)
    path.write_text(text[:start] + "\n".join(lines) + "\n" + text[end:], encoding="utf-8")


def test_the_pages_show_the_output_of_a_real_run(
    project: Path, shop_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """check's page and the README quote a run on this shop database: the same run now
    prints the same lines (figures aside: comparable() makes every number #). After a
    change of what check prints, AGENTDDL_REFRESH_CHECK_PAGE=1 writes the new run into
    the page (review its diff)."""
    change_with_baseline(project, capsys, shop_dsn, "0002_orders.sql", UNSAFE)
    argv = ["migrations/", "--clone", shop_dsn, "--baseline", "audit.json"]  # its workload: the baseline's
    command = 'agentddl check migrations/ --clone "$STAGING_DSN" --baseline audit.json'
    code, out, _ = check(capsys, *argv, "--format", "markdown")
    page = "docs/commands/check.md"
    if os.environ.get(REFRESH_ENV) == "1":
        refresh_page(
            page, f"{command} --format markdown", [*out.rstrip("\n").splitlines(), f"(exit code {code})"]
        )
    shown = shown_run(page, f"{command} --format markdown")
    assert shown[-1] == f"(exit code {code})"

    def same(lines: list[str]) -> list[str]:  # the clone's name differs from run to run
        return comparable("\n".join(line for line in lines if not line.startswith("- clone: ")))

    assert same(out.splitlines()) == same(shown[:-1]), (
        f"{page} shows another run: {REFRESH_ENV}=1 rewrites it"
    )
    code, out, _ = check(capsys, *argv)
    quoted = [line for line in shown_run("README.md", command) if line != "..."]
    assert set(comparable("\n".join(quoted))) <= set(comparable(out))
