"""One finding per statement: a generated DO block that updates every row with its own
UPDATE (each located at the DO) was as many identical unbatched-backfill findings as
it had lines; identical findings of one rule on one statement now collapse into one
that says how many times. Different statements keep their own findings."""

from __future__ import annotations

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

ROWS = 500


def backfill(rule: str, text: str) -> list[tuple[int, str, str]]:
    findings = lint(text, "m.sql", LintConfig(), only=[rule])
    return [(f.line or 0, f.name, f.message) for f in findings]


def test_a_do_block_of_500_updates_is_one_finding() -> None:
    body = "\n".join(f"  UPDATE public.accounts SET plan = 'p{i}' WHERE plan IS NULL;" for i in range(ROWS))
    found = backfill("unbatched-backfill", f"DO $$\nBEGIN\n{body}\nEND $$;\n")
    assert len(found) == 1
    line, name, message = found[0]
    assert (line, name) == (1, "unbatched-backfill")
    assert message.endswith(f"({ROWS} times in this statement.)")


def test_one_update_of_500_rows_is_one_finding() -> None:
    rows = ",\n".join(f"({i}, 'p{i}')" for i in range(ROWS))
    values = f"(VALUES\n{rows}) AS v(id, plan)"
    text = f"UPDATE public.accounts a SET plan = v.plan FROM {values} WHERE a.plan IS NULL;\n"
    found = backfill("unbatched-backfill", text)
    assert [(line, name) for line, name, _ in found] == [(1, "unbatched-backfill")]
    assert "times in this statement" not in found[0][2]


def test_separate_statements_keep_their_findings() -> None:
    text = "UPDATE public.accounts SET plan = 'a';\nUPDATE public.accounts SET plan = 'b';\n"
    found = backfill("unbatched-backfill", text)
    assert [line for line, _, _ in found] == [1, 2]
    assert not any("times in this statement" in message for _, _, message in found)


def test_different_findings_of_one_statement_are_kept() -> None:
    """Two CTEs updating two tables: two messages, two findings."""
    text = (
        "WITH a AS (UPDATE public.accounts SET plan = 'x' RETURNING 1),\n"
        "     b AS (UPDATE public.users SET plan = 'x' RETURNING 1) SELECT 1;\n"
    )
    found = backfill("unbatched-backfill", text)
    assert len(found) == 2 and {message.split(" in one")[0] for _, _, message in found} == {
        "This UPDATE touches every matching row of public.accounts",
        "This UPDATE touches every matching row of public.users",
    }


def test_both_statements_of_a_do_block_are_counted() -> None:
    """A static CREATE INDEX and one in EXECUTE (the fixture's DO block): both seen."""
    text = (
        "DO $$\nBEGIN\n  CREATE INDEX idx_runs_wake ON agent.runs (wake_at);\n"
        "  EXECUTE 'CREATE INDEX idx_runs_prio ON agent.runs (priority)';\nEND $$;\n"
    )
    found = backfill("require-concurrent-index-creation", text)
    assert len(found) == 1 and found[0][2].endswith("(2 times in this statement.)")
