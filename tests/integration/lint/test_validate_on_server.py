"""`ALTER TABLE ... VALIDATE CONSTRAINT` judged on a real database's rows with
`agentddl lint --schema-from postgresql://...`: the constraint's definition comes from
the database (added NOT VALID there) or from the `ADD ... NOT VALID` earlier in the
migration; an error where a violating row exists (and PostgreSQL really refuses the
VALIDATE there), quiet where none does, a warning saying it could not check when the
definition is not known."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from lint_on_server import lint_on, refused

from agentddl.checks.db import PostgresServer

SCHEMA = """
CREATE TABLE public.orgs (id bigint PRIMARY KEY);
CREATE TABLE public.users (id bigint PRIMARY KEY, age integer, org_id bigint, nick text);
INSERT INTO public.orgs VALUES (1), (2);
INSERT INTO public.users SELECT g, 20 + g % 50, 1 + g % 2, 'n' || g FROM generate_series(1, 200) g;
UPDATE public.users SET age = 5, org_id = 99 WHERE id = 7;
ALTER TABLE public.users ADD CONSTRAINT users_age_adult CHECK (age >= 18) NOT VALID;
ALTER TABLE public.users ADD CONSTRAINT users_org_fk
    FOREIGN KEY (org_id) REFERENCES public.orgs (id) NOT VALID;
"""
CLEAN = "UPDATE public.users SET age = 30, org_id = 1 WHERE id = 7"


@pytest.fixture
def database(pg_server_latest: PostgresServer) -> Iterator[str]:
    """Row 7 violates both constraints, added NOT VALID."""
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SCHEMA)
        yield dsn


def judged_on(
    dsn: str, migration: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, str]]:
    """The findings of data rules on the migration's last line, its schema and rows from `dsn`."""
    last = migration.count("\n") + 2
    rules = {"constraint-over-violating-rows", "not-null-over-nulls"}
    return [f for f in lint_on(dsn, migration, tmp_path, capsys, line=last, version=18) if f["name"] in rules]


@pytest.mark.parametrize("constraint", ["users_age_adult", "users_org_fk"])
def test_a_not_valid_constraint_of_the_database_is_judged_on_its_rows(
    constraint: str, database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    validate = f"ALTER TABLE public.users VALIDATE CONSTRAINT {constraint};"
    assert refused(database, validate)
    found = judged_on(database, validate, tmp_path, capsys)
    assert [(f["name"], f["severity"]) for f in found] == [("constraint-over-violating-rows", "error")]
    judged = r"has rows of public\.users .+: this statement fails there \(found in \d+ ms\)"
    assert re.search(judged, found[0]["message"])
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(CLEAN)
    assert not refused(database, validate)
    assert judged_on(database, validate, tmp_path, capsys) == []


def test_a_constraint_added_earlier_in_the_migration_is_judged_on_the_rows(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    migration = (
        "ALTER TABLE public.users ADD CONSTRAINT users_nick_short CHECK (length(nick) < 4) NOT VALID;\n"
        "ALTER TABLE public.users VALIDATE CONSTRAINT users_nick_short;"
    )
    found = judged_on(database, migration, tmp_path, capsys)
    assert [f["severity"] for f in found] == ["error"]  # 'n100' is 4 characters
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("DELETE FROM public.users WHERE id >= 100")
    assert judged_on(database, migration, tmp_path, capsys) == []


def test_an_unknown_constraint_keeps_a_warning_saying_it_could_not_check(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = judged_on(database, "ALTER TABLE public.users VALIDATE CONSTRAINT no_such;", tmp_path, capsys)
    assert [f["severity"] for f in found] == ["warning"]
    assert "the definition of no_such is not known" in found[0]["message"]


@pytest.mark.min_pg(18)
def test_a_not_null_not_valid_is_judged_on_its_nulls(
    scratch_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE public.t (id int, note text);"
            "INSERT INTO public.t VALUES (1, 'a'), (2, NULL);"
            "ALTER TABLE public.t ADD CONSTRAINT t_note_set NOT NULL note NOT VALID"
        )
    validate = "ALTER TABLE public.t VALIDATE CONSTRAINT t_note_set;"
    assert refused(scratch_dsn, validate)
    found = judged_on(scratch_dsn, validate, tmp_path, capsys)
    assert [(f["name"], f["severity"]) for f in found] == [("not-null-over-nulls", "error")]
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        conn.execute("UPDATE public.t SET note = 'b' WHERE id = 2")
    assert judged_on(scratch_dsn, validate, tmp_path, capsys) == []
