"""The CI set-ups of docs/ci.md, run as written: each `agentddl` command of the GitHub
Actions workflow and the GitLab job (read out of the page's marked YAML blocks), and the
pre-commit hook's entry from .pre-commit-hooks.yaml, in a throwaway git repository where a
branch adds a migration to a database agentddl did not generate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import CONFIG, QUERIES, SAFE, UNSAFE
from git_repo import git, new_repo

ROOT = Path(__file__).resolve().parents[3]
BLOCK = re.compile(r"<!-- ci: ([a-z-]+) -->\n```yaml\n(.*?)```", re.S)
SHOP_MIGRATION = "CREATE TABLE public.customers (id bigint PRIMARY KEY);\n"  # there already: not checked
CHANGE = "migrations/versions/0002_orders.sql"


def ci_blocks() -> dict[str, object]:
    """The page's marked YAML blocks, parsed."""
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    return {name: yaml.safe_load(text) for name, text in BLOCK.findall(page)}


def agentddl_lines(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines() if line.strip().startswith("agentddl ")]


def github_commands() -> list[str]:
    workflow = ci_blocks()["github-actions"]
    assert isinstance(workflow, dict)
    steps = workflow["jobs"]["agentddl-check"]["steps"]
    lines = [line for step in steps for line in agentddl_lines(step.get("run", ""))]
    # the expressions GitHub fills in before the shell runs
    return [line.replace("${{ github.base_ref }}", "main") for line in lines]


def gitlab_commands() -> list[str]:
    job = ci_blocks()["gitlab"]
    assert isinstance(job, dict)
    return [line for entry in job["agentddl-check"]["script"] for line in agentddl_lines(entry)]


def shell(repo: Path, command: str, dsn: str) -> subprocess.CompletedProcess[str]:
    """`command` as a CI runner's shell runs it: the DSN secret and the merge request's
    target branch in the environment, agentddl on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTDDL_DSN", "AGENTDDL_SERVER")}
    env.update(
        STAGING_DSN=dsn,
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
    )
    return subprocess.run(
        ["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture
def repo(tmp_path: Path, shop_dsn: str) -> Iterator[Path]:
    """main: the migration already applied, the workload, its baseline taken on the
    database; origin/main is main; the branch `change` is checked out."""
    repo = tmp_path / "app"
    (repo / "migrations" / "versions").mkdir(parents=True)
    (repo / "migrations" / "versions" / "0001_shop.sql").write_text(SHOP_MIGRATION)
    (repo / "queries.sql").write_text(QUERIES)
    (repo / "agentddl.toml").write_text(CONFIG)
    taken = shell(
        repo,
        'agentddl audit --dsn "$STAGING_DSN" --queries queries.sql --sample 0 --baseline audit.json',
        shop_dsn,
    )
    assert taken.returncode == 0, taken.stderr
    new_repo(repo)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "shop")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "checkout", "-q", "-b", "change")
    yield repo


def test_the_page_marks_the_examples_the_tests_run() -> None:
    assert set(ci_blocks()) == {"github-actions", "gitlab", "pre-commit"}
    assert len(github_commands()) == 2 and len(gitlab_commands()) == 1


def test_the_github_workflow_annotates_an_unsafe_change_and_writes_the_comment(
    repo: Path, shop_dsn: str
) -> None:
    (repo / CHANGE).write_text(UNSAFE)
    git(repo, "add", CHANGE)
    annotations, comment = github_commands()
    done = shell(repo, annotations, shop_dsn)
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert {re.search(r"title=(ADL\d+|ADT\d+)", line).group(1) for line in errors} == {
        "ADL101",
        "ADL209",
        "ADT101",
    }  # type: ignore[union-attr]
    assert all(f"file={CHANGE}," in line for line in errors)  # the already-applied 0001 is not checked
    done = shell(repo, comment, shop_dsn)
    assert done.returncode == 0, done.stderr  # `|| true`: the comment is posted either way
    markdown = (repo / "agentddl-check.md").read_text()
    assert markdown.startswith("## agentddl check\n")
    assert f"- migrations: {CHANGE}\n" in markdown and "- lint: **failed**" in markdown


def test_the_github_workflow_passes_a_safe_change(repo: Path, shop_dsn: str) -> None:
    (repo / CHANGE).write_text(SAFE)
    annotations, _ = github_commands()
    done = shell(repo, annotations, shop_dsn)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::error" not in done.stdout


def test_the_gitlab_job_writes_a_code_quality_report(repo: Path, shop_dsn: str) -> None:
    (repo / CHANGE).write_text(UNSAFE)
    (command,) = gitlab_commands()
    done = shell(repo, command, shop_dsn)
    assert done.returncode == 1, done.stderr
    report = json.loads((repo / "gl-code-quality-report.json").read_text())
    assert {issue["check_name"] for issue in report if issue["severity"] == "critical"} == {
        "ADL101",
        "ADL209",
        "ADT101",
    }
    # the errors are at the change's lines (a finding about an object, e.g. the new index
    # the workload never reads, is located at the object's name)
    assert {issue["location"]["path"] for issue in report if issue["severity"] == "critical"} == {CHANGE}


def test_the_pre_commit_hook_lints_the_staged_migrations(repo: Path, shop_dsn: str) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "agentddl-lint"
    consumer = ci_blocks()["pre-commit"]
    assert isinstance(consumer, dict)
    assert [h["id"] for r in consumer["repos"] for h in r["hooks"]] == [hook["id"]]
    (repo / CHANGE).write_text(UNSAFE)
    (repo / "notes.py").write_text("print('not a migration')\n")
    git(repo, "add", ".")

    def run_hook() -> subprocess.CompletedProcess[str]:
        """What pre-commit does: the entry with the staged files its patterns select."""
        staged = git(repo, "diff", "--cached", "--name-only").split()
        kinds = {"sql": ".sql", "python": ".py"}
        suffixes = {kinds[kind] for kind in hook["types_or"]}
        files = [f for f in staged if re.search(hook["files"], f) and Path(f).suffix in suffixes]
        assert files == [CHANGE]
        return shell(repo, " ".join([hook["entry"], *files]), shop_dsn)

    done = run_hook()
    assert done.returncode == 1 and "ADL101" in done.stdout, done.stderr
    (repo / CHANGE).write_text(SAFE)
    git(repo, "add", CHANGE)
    done = run_hook()
    assert done.returncode == 0, done.stdout + done.stderr
