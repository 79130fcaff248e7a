"""psql's own syntax in a script (meta-commands, COPY data, :variables) is not a syntax
error, and findings after it keep their line numbers."""

from __future__ import annotations

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.pg.psql_script import as_sql

SCRIPT = """\\set ON_ERROR_STOP on
\\set reader app_ro
CREATE TABLE colors (id int PRIMARY KEY, name text);
COPY colors (id, name) FROM stdin;
1\tred
2\t\\N
\\.
GRANT SELECT ON colors TO :reader;
COMMENT ON TABLE colors IS :'comment';
SET lock_timeout = '2s';
CREATE INDEX orders_color_idx ON orders (color_id);
"""


def test_a_psql_script_lints_with_the_right_lines() -> None:
    findings = lint(SCRIPT, "seed.sql", LintConfig())
    expected = [(3, "integer-key-overflow"), (11, "require-concurrent-index-creation")]
    assert [(f.line, f.name) for f in findings] == expected


def test_rewrites_keep_every_offset() -> None:
    text = (
        "-- é\nSELECT a[lo:hi], x::int, $$ :in $$, ':no' FROM t\n"
        "WHERE a = :'v' AND b = :w AND c = :\"q\";\n"
    )
    sql = as_sql(text)
    assert len(sql) == len(text)
    assert "a[lo:hi]" in sql and "x::int" in sql and "$$ :in $$" in sql and "':no'" in sql
    assert "a = 'v' " in sql and "b = _w" in sql and 'c = "q" ' in sql


def test_copy_data_runs_to_the_end_marker_or_the_end_of_file() -> None:
    assert as_sql("COPY t FROM STDIN;\nx\ty\n") == "COPY t FROM STDIN;\n   \n"
    assert as_sql("COPY t (a) FROM stdin WITH (FORMAT csv);\n1\n\\.\nSELECT 1;\n").endswith(
        "\n \n  \nSELECT 1;\n"
    )


def test_alembic_sql_is_left_alone() -> None:
    findings = lint("SELECT :x;\n", "m.sql", LintConfig(runner="alembic"))
    assert [f.name for f in findings] == ["syntax-error"]
