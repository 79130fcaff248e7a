"""The walker: statement positions, transaction model, settings and created relations."""

from __future__ import annotations

from pglast import ast

from agentddl.checks.lint.types import RelationName
from agentddl.checks.pg.walk import walk


def test_statement_positions_skip_comments_and_whitespace() -> None:
    text = "-- header\n\n  /* a\n  b */  CREATE INDEX i ON t (a);\nSELECT 'é'; DROP TABLE x"
    steps = walk(text, "m.sql", 16, "psql").steps
    assert [(s.line, s.column) for s, _ in steps] == [(4, 9), (5, 1), (5, 13)]
    assert [s.sql for s, _ in steps] == ["CREATE INDEX i ON t (a)", "SELECT 'é'", "DROP TABLE x"]


def test_syntax_error_has_offset_and_no_statements() -> None:
    migration = walk("SELECT 1;\nCREATE TABLEE x;", "m.sql", 16, "psql")
    assert migration.syntax_error is not None
    assert migration.source.position(migration.syntax_error.offset) == (2, 8)
    assert migration.steps == []


def test_a_nul_byte_is_a_syntax_error_where_it_stands() -> None:
    """The parser stops at a NUL as C does: what follows it must not pass unread."""
    migration = walk("SELECT 1;\nSELECT \x00; DROP TABLE runs;", "m.sql", 16, "psql")
    assert migration.syntax_error is not None and "NUL" in migration.syntax_error.message
    assert migration.source.position(migration.syntax_error.offset) == (2, 8)
    assert migration.steps == []


def test_psql_autocommits_outside_explicit_blocks() -> None:
    text = "SELECT 1; BEGIN; SELECT 2; SELECT 3; COMMIT; SELECT 4;"
    statements = [s for s, _ in walk(text, "m.sql", 16, "psql").steps]
    blocks = [s.in_transaction_block for s in statements]
    assert blocks == [False, True, True, True, True, False]
    ids = [s.transaction for s in statements]
    assert ids[1] == ids[2] == ids[3] == ids[4] and len({ids[0], ids[2], ids[5]}) == 3


def test_alembic_without_transaction_statements_is_one_transaction() -> None:
    statements = [s for s, _ in walk("SELECT 1; SELECT 2;", "m.sql", 16, "alembic").steps]
    assert all(s.in_transaction_block for s in statements)
    assert statements[0].transaction == statements[1].transaction


def test_do_block_statements_follow_the_do_at_its_location() -> None:
    text = "SELECT 1;\nDO $$\nBEGIN\n  CREATE INDEX i ON t (a);\n  EXECUTE 'DROP INDEX j';\nEND $$;"
    steps = walk(text, "m.sql", 16, "psql").steps
    inner = [s for s, _ in steps if s.in_do_block]
    assert [type(s.node) for s in inner] == [ast.IndexStmt, ast.DropStmt]
    assert all((s.line, s.column, s.in_transaction_block) == (2, 1, True) for s in inner)
    assert inner[0].sql == "CREATE INDEX i ON t (a)"


def test_lock_timeout_scopes() -> None:
    text = (
        "SET lock_timeout = '2s'; SELECT 1;"
        " BEGIN; SET LOCAL lock_timeout = '1min'; SELECT 2; COMMIT; SELECT 3;"
        " SELECT set_config('lock_timeout', '500ms', false); SELECT 4; RESET lock_timeout;"
        " SELECT 5;"
    )
    by_sql = {s.sql: c.lock_timeout_ms for s, c in walk(text, "m.sql", 16, "psql").steps}
    assert [by_sql[f"SELECT {n}"] for n in range(1, 6)] == [2000, 60000, 2000, 500, 0]


def test_created_relations_respect_search_path_and_quoting() -> None:
    text = (
        'CREATE TABLE "Events" (id int); SET search_path TO agent, public;'
        " CREATE TABLE runs (id int); CREATE INDEX idx ON runs (id); SELECT 1;"
    )
    steps = walk(text, "m.sql", 16, "psql").steps
    context = steps[-1][1]
    assert context.search_path == ("agent", "public")
    assert context.created_relations == {
        RelationName("public", "Events"),
        RelationName("agent", "runs"),
        RelationName("agent", "idx"),
    }
    assert not context.is_new(RelationName("public", "events"))


def test_rollback_forgets_relations_created_in_the_transaction() -> None:
    text = "BEGIN; CREATE TABLE t (a int); ROLLBACK; SELECT 1;"
    assert walk(text, "m.sql", 16, "psql").steps[-1][1].created_relations == frozenset()


def test_psql_meta_commands_are_ignored() -> None:
    migration = walk("\\set ON_ERROR_STOP on\nSELECT 1;", "m.sql", 16, "psql")
    assert migration.syntax_error is None
    assert [(s.line, s.sql) for s, _ in migration.steps] == [(2, "SELECT 1")]


def test_last_statement_without_semicolon_ends_before_trailing_comments() -> None:
    text = "SELECT 1;\nSELECT 2 -- two\n-- agentddl: ignore[x] later\n"
    statements = [s for s, _ in walk(text, "m.sql", 16, "psql").steps]
    assert statements[-1].sql == "SELECT 2"


def test_earlier_of_and_same_transaction_match_a_scan_of_earlier() -> None:
    text = (
        "CREATE SCHEMA a; BEGIN; CREATE TABLE a.t (x int);"
        " DO $$ BEGIN CREATE SCHEMA b; END $$; COMMIT; CREATE SCHEMA c; SELECT 1;"
    )
    steps = walk(text, "m.sql", 16, "psql").steps
    for statement, context in steps:
        assert [s.index for s in context.earlier] == list(range(statement.index))
        scanned = tuple(s for s in context.earlier if isinstance(s.node, ast.CreateSchemaStmt))
        assert context.earlier_of(ast.CreateSchemaStmt) == scanned
        assert context.earlier_of(ast.CreateSchemaStmt, ast.CreateStmt) == tuple(
            s for s in context.earlier if isinstance(s.node, ast.CreateSchemaStmt | ast.CreateStmt)
        )
        same = tuple(
            s
            for s in context.earlier
            if statement.in_transaction_block and s.transaction == statement.transaction
        )
        assert context.same_transaction(statement) == same
        creates = tuple(s for s in same if isinstance(s.node, ast.CreateStmt | ast.CreateSchemaStmt))
        assert context.same_transaction(statement, ast.CreateStmt, ast.CreateSchemaStmt) == creates
    assert len(steps[-1][1].earlier_of(ast.CreateSchemaStmt)) == 3
