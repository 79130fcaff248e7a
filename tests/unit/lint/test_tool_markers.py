"""goose / dbmate / sql-migrate files: only the up section is linted, in the one
transaction these tools wrap it in unless the file opts out."""

from __future__ import annotations

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.pg.tool_markers import up_section

INDEX = "CREATE INDEX CONCURRENTLY orders_status_idx ON orders (status);\n"
DROP = "DROP INDEX orders_status_idx;\nALTER TABLE orders DROP COLUMN legacy;\n"


def _rules(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.name) for f in lint(text, "m.sql", LintConfig()) if f.severity == "error"]


@pytest.mark.parametrize(
    ("up", "down"),
    [
        ("-- +goose Up", "-- +goose Down"),
        ("-- migrate:up", "-- migrate:down"),
        ("-- +migrate Up", "-- +migrate Down"),
    ],
)
def test_the_up_section_runs_in_a_transaction_and_the_down_section_not_at_all(up: str, down: str) -> None:
    text = f"{up}\n{INDEX}\n{down}\n{DROP}"
    assert _rules(text) == [(2, "concurrently-in-transaction")]


@pytest.mark.parametrize(
    "header",
    [
        "-- +goose NO TRANSACTION\n-- +goose Up",
        "-- migrate:up transaction:false",
        "-- +migrate Up notransaction",
    ],
)
def test_opting_out_of_the_transaction(header: str) -> None:
    assert _rules(f"{header}\n{INDEX}") == []


def test_down_first_and_offsets_kept() -> None:
    text = f"-- +goose Down\n{DROP}-- +goose Up\n{INDEX}"
    section = up_section(text)
    assert len(section.text) == len(text) and "DROP" not in section.text and section.in_transaction
    assert up_section(INDEX) == up_section(INDEX).__class__(INDEX, in_transaction=False)
