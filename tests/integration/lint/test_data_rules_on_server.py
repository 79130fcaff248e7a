"""Statements that fail on existing rows, judged on a real database's rows with
`agentddl lint --schema-from postgresql://...`: each data rule's statement is an error
where violating rows exist (and PostgreSQL really refuses the statement there), and
quiet where none does; a check that cannot finish (a lock held by another session)
leaves the warning, saying so. The database is left as it was."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from lint_on_server import lint_on, refusal, refused

from agentddl.checks.cli.lint_sources import schema_facts
from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.data_probe import ReadOnlyProbe
from agentddl.checks.lint import LintRequest, run

SCHEMA = """
CREATE TABLE public.orgs (id bigint PRIMARY KEY);
CREATE TABLE public.users (
    id bigint, email text, nick text, age integer, org_id bigint, code text, score numeric
);
INSERT INTO public.orgs VALUES (1), (2);
"""
CLEAN = """
INSERT INTO public.users
SELECT g, 'u' || g || '@x', 'n' || g, 20 + g % 50, 1 + g % 2, g::text, g
FROM generate_series(1, 200) g;
"""


@dataclass(frozen=True)
class Case:
    rule: str
    statement: str
    dirty: str  # makes the statement fail on the clean rows
    # Without a database: this rule's warning (False: another rule's finding already
    # says the statement may fail, a narrowing's column-type-change-rewrites)
    warns_alone: bool = True


CASES = [
    Case(
        "unique-over-duplicates",
        "CREATE UNIQUE INDEX CONCURRENTLY users_email_key ON public.users (email);",
        "UPDATE public.users SET email = 'u1@x' WHERE id = 2;",
    ),
    Case(
        "unique-over-duplicates",
        'ALTER TABLE public.users ADD CONSTRAINT "users key" UNIQUE (org_id, nick);',
        "UPDATE public.users SET nick = 'n1' WHERE id = 3;",
    ),
    Case(
        "not-null-over-nulls",
        "ALTER TABLE public.users ALTER COLUMN nick SET NOT NULL;",
        "UPDATE public.users SET nick = NULL WHERE id = 7;",
    ),
    Case(
        "constraint-over-violating-rows",
        "ALTER TABLE public.users ADD CONSTRAINT users_age CHECK (age BETWEEN 0 AND 150);",
        "UPDATE public.users SET age = 200 WHERE id = 9;",
    ),
    Case(
        "constraint-over-violating-rows",
        "ALTER TABLE public.users ADD CONSTRAINT users_org_fk FOREIGN KEY (org_id) REFERENCES public.orgs;",
        "UPDATE public.users SET org_id = 99 WHERE id = 11;",
    ),
    Case(
        "type-change-over-unfit-values",
        "ALTER TABLE public.users ALTER COLUMN nick TYPE varchar(5);",
        "UPDATE public.users SET nick = 'a nickname too long' WHERE id = 13;",
        warns_alone=False,
    ),
    Case(
        "type-change-over-unfit-values",
        "ALTER TABLE public.users ALTER COLUMN code TYPE integer USING code::integer;",
        "UPDATE public.users SET code = 'x13' WHERE id = 13;",
    ),
    Case(
        "type-change-over-unfit-values",
        "ALTER TABLE public.users ALTER COLUMN score TYPE smallint;",
        "UPDATE public.users SET score = 40000 WHERE id = 13;",
    ),
]
IDS = [f"{case.rule}-{i}" for i, case in enumerate(CASES)]


@pytest.fixture
def database(pg_server_latest: PostgresServer) -> Iterator[str]:
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SCHEMA)
            conn.execute(CLEAN)
            conn.execute("ANALYZE")
        yield dsn


def judged(found: list[dict[str, str]], rule: str) -> list[tuple[str, str]]:
    return [(f["severity"], f["message"]) for f in found if f["name"] == rule]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_violating_rows_make_an_error_and_clean_rows_nothing(
    case: Case, database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not refused(database, case.statement)
    assert case.rule not in {f["name"] for f in lint_on(database, case.statement, tmp_path, capsys)}
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(case.dirty)
    assert refused(database, case.statement)
    found = [f for f in lint_on(database, case.statement, tmp_path, capsys) if f["name"] == case.rule]
    assert [f["severity"] for f in found] == ["error"]
    assert re.search(r"has .+: this statement fails there \(found in \d+ ms\)", found[0]["message"])


def test_without_a_database_each_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text(SCHEMA)
    for case in CASES:
        found = [f for f in lint_on(str(schema), case.statement, tmp_path, capsys) if f["name"] == case.rule]
        assert [f["severity"] for f in found] == (["warning"] if case.warns_alone else []), case.statement


@pytest.mark.parametrize(
    ("timeouts", "fired"),
    [
        ("{ statement_ms = 200, lock_ms = 600000 }", "statement timeout"),
        ("{ statement_ms = 600000, lock_ms = 200 }", "lock timeout"),
    ],
)
def test_a_check_that_cannot_finish_keeps_the_warning(
    database: str, tmp_path: Path, timeouts: str, fired: str
) -> None:
    """Another session holds an ACCESS EXCLUSIVE lock, so the check waits until one of
    the configured timeouts ends it: which one fired shows the setting reached the
    probe (a wait, not a speed: it cannot finish in time on any machine)."""
    (tmp_path / "m.sql").write_text("ALTER TABLE public.users ALTER COLUMN nick SET NOT NULL;\n")
    (tmp_path / "agentddl.toml").write_text(f"data_check_timeout = {timeouts}\n")
    schema, config = schema_facts(database), tmp_path / "agentddl.toml"
    with psycopg.connect(database) as holder, ReadOnlyProbe(database) as probe:
        holder.execute("LOCK TABLE public.users IN ACCESS EXCLUSIVE MODE")
        result = run(LintRequest([str(tmp_path / "m.sql")], config_file=config, schema=schema, probe=probe))
        holder.rollback()
    found = [f for f in result.findings if f.name == "not-null-over-nulls"]
    assert [f.severity for f in found] == ["warning"]
    assert "did not finish: timed out after" in found[0].message
    assert f"canceling statement due to {fired}" in found[0].message


def test_an_earlier_backfill_is_not_judged_on_todays_rows(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rows the statement will see are not today's: the warning stays, saying why."""
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET nick = NULL WHERE id = 7")
    backfilled = (
        "UPDATE public.users SET nick = 'x' WHERE id < 100;\n"
        "ALTER TABLE public.users ALTER COLUMN nick SET NOT NULL;"
    )
    found = [
        f
        for f in lint_on(database, backfilled, tmp_path, capsys, line=3)
        if f["name"] == "not-null-over-nulls"
    ]
    assert [f["severity"] for f in found] == ["warning"]
    assert "Not checked on" in found[0]["message"]
    assert "an earlier statement of this migration changes public.users" in found[0]["message"]


def test_an_earlier_migration_of_the_run_is_not_judged_on_todays_rows(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backfill revision, then the one that sets NOT NULL: today's NULLs are not the
    second one's; linted alone, the second one is judged (an error)."""
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET nick = NULL WHERE id = 7")
    (tmp_path / "0001_backfill.sql").write_text("UPDATE public.users SET nick = 'x' WHERE id < 100;\n")
    (tmp_path / "0002_not_null.sql").write_text("ALTER TABLE public.users ALTER COLUMN nick SET NOT NULL;\n")
    files = [str(tmp_path / "0001_backfill.sql"), str(tmp_path / "0002_not_null.sql")]

    def judged(*paths: str) -> list[tuple[str, str]]:
        main(["lint", *paths, "--schema-from", database, "--format", "json"])
        findings = json.loads(capsys.readouterr().out)["findings"]
        return [(f["severity"], f["message"]) for f in findings if f["name"] == "not-null-over-nulls"]

    [(severity, message)] = judged(*files)
    assert severity == "warning" and "an earlier migration of this run changes public.users" in message
    assert [severity for severity, _ in judged(files[1])] == ["error"]


@pytest.fixture
def server_database(pg_server: PostgresServer) -> Iterator[tuple[int, str]]:
    """The clean rows on each tested major: (its version, the database)."""
    with pg_server.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SCHEMA)
            conn.execute(CLEAN)
        yield pg_server.version, dsn


def test_nulls_not_distinct_counts_null_keys_from_15(
    server_database: tuple[int, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two rows with a NULL code: a plain unique index accepts them on every version
    (quiet); with NULLS NOT DISTINCT PostgreSQL 15+ refuses them (an error naming the
    NULLs) and 14 refuses the syntax (this rule quiet: syntax-not-in-target-version's
    finding). Linted for the server's own version."""
    version, dsn = server_database
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET code = NULL WHERE id IN (4, 5)")
    plain = "CREATE UNIQUE INDEX CONCURRENTLY users_code_key ON public.users (code);"
    assert refusal(dsn, plain) is None
    assert judged(lint_on(dsn, plain, tmp_path, capsys, version=version), "unique-over-duplicates") == []
    strict = plain.replace(");", ") NULLS NOT DISTINCT;")
    found = lint_on(dsn, strict, tmp_path, capsys, version=version)
    if version < 15:
        assert refusal(dsn, strict) is psycopg.errors.SyntaxError
        assert judged(found, "unique-over-duplicates") == []
        assert "syntax-not-in-target-version" in {f["name"] for f in found}
        return
    assert refusal(dsn, strict) is psycopg.errors.UniqueViolation
    [(severity, message)] = judged(found, "unique-over-duplicates")
    assert severity == "error"
    assert "has duplicate (code) values (NULLs included: NULLS NOT DISTINCT) in public.users" in message
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET code = 'c' || id WHERE code IS NULL")
    assert judged(lint_on(dsn, strict, tmp_path, capsys, version=version), "unique-over-duplicates") == []


def test_a_strings_conversion_is_checked_only_where_pg_input_is_valid_exists(
    server_database: tuple[int, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A code that is not an integer: PostgreSQL refuses the type change on every
    version; linted for the server's own version, 16+ finds the value (an error), 14
    and 15 have no pg_input_is_valid, and the warning says the check was not run."""
    version, dsn = server_database
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET code = 'x13' WHERE id = 13")
        has_function = conn.execute("SELECT to_regproc('pg_input_is_valid') IS NOT NULL").fetchone()
    assert has_function == (version >= 16,)
    change = "ALTER TABLE public.users ALTER COLUMN code TYPE integer USING code::integer;"
    assert refused(dsn, change)
    [(severity, message)] = judged(
        lint_on(dsn, change, tmp_path, capsys, version=version), "type-change-over-unfit-values"
    )
    if version >= 16:
        assert severity == "error" and "this statement fails there" in message
    else:
        assert severity == "warning" and "Not checked on" in message
        assert "pg_input_is_valid is PostgreSQL 16+" in message


@pytest.mark.min_pg(18)
def test_enforcing_a_foreign_key_is_judged_on_18(
    server_database: tuple[int, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PostgreSQL 18: a foreign key added NOT ENFORCED accepts an orphan, and ALTER
    CONSTRAINT ... ENFORCED then validates every row: an error over the orphan, quiet
    once it is gone."""
    _, dsn = server_database
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET org_id = 99 WHERE id = 11")
        conn.execute(
            "ALTER TABLE public.users ADD CONSTRAINT users_org_fk"
            " FOREIGN KEY (org_id) REFERENCES public.orgs NOT ENFORCED"
        )
    enforce = "ALTER TABLE public.users ALTER CONSTRAINT users_org_fk ENFORCED;"
    assert refusal(dsn, enforce) is psycopg.errors.ForeignKeyViolation
    [(severity, message)] = judged(
        lint_on(dsn, enforce, tmp_path, capsys, version=18), "constraint-over-violating-rows"
    )
    assert severity == "error"
    assert "has rows of public.users whose (org_id) has no row in public.orgs" in message
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.users SET org_id = 1 WHERE id = 11")
    assert refusal(dsn, enforce) is None
    assert judged(lint_on(dsn, enforce, tmp_path, capsys, version=18), "constraint-over-violating-rows") == []
