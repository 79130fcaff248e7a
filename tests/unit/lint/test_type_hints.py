"""existing-type comments: what Alembic's existing_type= tells the column rules."""

from __future__ import annotations

from agentddl.checks.pg.type_hints import existing_types, hint_comment


def test_a_hint_round_trips_to_the_column_type() -> None:
    sql = "ALTER TABLE t ALTER COLUMN c TYPE VARCHAR(2) " + hint_comment("c", "VARCHAR(3)")
    assert {name: str(kind) for name, kind in existing_types(sql).items()} == {"c": "varchar(3)"}


def test_quoted_names_and_qualified_types_keep_their_spelling() -> None:
    sql = hint_comment("fooBar", "NUMERIC(10, 2)") + hint_comment("tags", "TEXT[]")
    types = existing_types(sql)
    assert str(types["fooBar"]) == "numeric(10,2)" and types["tags"].array


def test_a_type_that_does_not_parse_gives_no_hint() -> None:
    assert existing_types('/* agentddl: existing-type "c" NOT A TYPE( */') == {}
    assert existing_types('/* agentddl: existing-type "c" int; DROP TABLE t */') == {}
    assert existing_types("ALTER TABLE t ALTER COLUMN c TYPE int") == {}
