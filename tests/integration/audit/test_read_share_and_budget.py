"""A path that reads most of a large table fails whatever the access method (ADA117), a
path over its time budget fails (ADA118), and a query file's findings point at the
statement's file:line, on a real PostgreSQL: a 300,000-row table audited in place.

Budgets come from this run, never fixed milliseconds: the whole-table read is timed
first, and the budgets are a tenth of that time (over) or a hundred times it (under)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.db import connect

ROWS = 300_000
SCHEMA = f"""
CREATE SCHEMA shop;
CREATE TABLE shop.owners (id integer PRIMARY KEY);
CREATE TABLE shop.items (
    id bigint PRIMARY KEY,
    n integer NOT NULL,
    note text NOT NULL,
    owner_id integer NOT NULL REFERENCES shop.owners (id) ON DELETE CASCADE
);
CREATE INDEX items_owner_idx ON shop.items (owner_id);
CREATE TABLE shop.kinds (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE shop.archive (id bigint PRIMARY KEY, n integer NOT NULL, note text NOT NULL);
INSERT INTO shop.owners SELECT g FROM generate_series(1, 1000) AS g;
INSERT INTO shop.items SELECT g, g % 1000, 'item ' || g, 1 + g % 1000 FROM generate_series(1, {ROWS}) AS g;
INSERT INTO shop.kinds SELECT g, 'kind ' || g FROM generate_series(1, 50) AS g;
"""
WHOLE = "SELECT id, n FROM shop.items WHERE id > 0 ORDER BY id;"
QUERIES = f"""-- The workload of a small shop.

-- name: all_items
-- Every item, in key order: read through the primary key, all of it.
{{whole_budget}}
{WHOLE}

-- name: item(id)
-- example: id = 4242
{{item_budget}}
SELECT id, n FROM shop.items WHERE id = :id;

-- name: first_page
SELECT id FROM shop.items WHERE id > 0 ORDER BY id LIMIT 100;

-- name: kinds
SELECT id, name FROM shop.kinds ORDER BY id;

-- name: counted_in_a_cte
WITH c AS MATERIALIZED (SELECT n FROM shop.items WHERE id > 0)
SELECT count(*) FROM c;

-- name: bump_all
UPDATE shop.items SET n = n + 1 WHERE id > 0;

-- name: archive_all
INSERT INTO shop.archive SELECT id, n, note FROM shop.items WHERE n >= 0;

-- name: drop_owners
-- 900 of the 1,000 owners: their 270,000 items go with them (ON DELETE CASCADE).
DELETE FROM shop.owners WHERE id > 100;

-- name: drop_owner(id)
-- example: id = 7
DELETE FROM shop.owners WHERE id = :id;
"""


@dataclass
class Shop:
    dsn: str
    folder: Path

    def query_file(self, whole_budget: str = "", item_budget: str = "") -> Path:
        """The shop's query file, its budget lines filled in."""
        queries = self.folder / "shop_queries.sql"
        queries.write_text(QUERIES.format(whole_budget=whole_budget, item_budget=item_budget))
        return queries

    def audit(self, capsys: Any, whole_budget: str = "", item_budget: str = "", *extra: str) -> Any:
        """The CLI's JSON report on the shop with the query file (budget lines filled in)."""
        queries = self.query_file(whole_budget, item_budget)
        args = ["audit", "--dsn", self.dsn, "--queries", str(queries), "--sample", "0", *extra]
        code = main([*args, "--format", "json"])
        out = capsys.readouterr()
        assert code in (0, 1), out.err
        return code, json.loads(out.out), queries


@pytest.fixture(scope="module")
def shop(pg_servers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    server = pg_servers.get(16)
    dsn = server.create_database()
    try:
        with connect(dsn) as conn:
            conn.execute(SCHEMA.encode())
            conn.execute("VACUUM ANALYZE")
        yield Shop(dsn, tmp_path_factory.mktemp("shop"))
    finally:
        server.drop_database(dsn)


def _paths(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in report["paths"]}


def _line_of(path: Path, text: str) -> int:
    return path.read_text().splitlines().index(text) + 1


def test_a_whole_table_read_through_an_index_fails_and_a_point_lookup_passes(shop: Shop, capsys: Any) -> None:
    code, report, queries = shop.audit(capsys)
    paths = _paths(report)
    whole = paths["all_items"]
    assert code == 1 and not whole["passed"] and whole["findings"] == ["ADA117"], whole
    assert whole["node"].startswith("Index Scan using items_pkey"), whole  # served, by its node
    (finding,) = [f for f in report["findings"] if f["code"] == "ADA117" and f["object"] == "all_items"]
    assert f"reads {ROWS:,} rows of shop.items's {ROWS:,} (100%" in finding["message"]
    assert "measured: Index Scan using items_pkey" in finding["message"]
    # the finding points at the statement's first line in the query file
    assert (finding["file"], finding["line"]) == (str(queries), _line_of(queries, WHOLE))
    for served in ("item", "first_page", "kinds"):  # a lookup, a bounded LIMIT, a small table
        assert paths[served]["passed"] and paths[served]["findings"] == [], paths[served]
    # the reads of a CTE, of an UPDATE's scan and of an INSERT ... SELECT are counted too
    for name in ("counted_in_a_cte", "bump_all", "archive_all"):
        assert "ADA117" in paths[name]["findings"], paths[name]
    assert paths["bump_all"]["written"] is not None  # in place: planned by its read part
    # a DELETE of a small table whose foreign key's action reads most of a large one
    (cascade,) = [f for f in report["findings"] if f["code"] == "ADA117" and f["object"] == "drop_owners"]
    assert (
        "through items_owner_id_fkey (ON DELETE CASCADE): it deletes ~900 shop.owners rows"
        in (cascade["message"])
    )
    assert "each one's 300 referencing rows read, one lookup (measured: " in cascade["message"]
    assert paths["drop_owner"]["passed"], paths["drop_owner"]  # one owner: 300 items


def test_a_path_over_its_budget_fails_and_one_under_passes(shop: Shop, capsys: Any) -> None:
    """Budgets derived from the whole-table read timed in this run: a tenth of it fails
    that read; the lookup (thousands of times cheaper) passes a budget of that time."""
    _, first, _ = shop.audit(capsys)
    measured = _paths(first)["all_items"]["actual_ms"]
    assert measured and measured > 0
    tenth = round(measured / 10, 3)
    tight, loose = f"-- budget: {tenth}ms", f"-- budget: {measured:.3f} ms"
    code, report, queries = shop.audit(capsys, tight, loose)
    paths = _paths(report)
    assert code == 1 and "ADA118" in paths["all_items"]["findings"], paths["all_items"]
    assert paths["item"]["passed"] and paths["item"]["findings"] == [], paths["item"]
    (over,) = [f for f in report["findings"] if f["code"] == "ADA118"]
    assert over["object"] == "all_items" and f"over its budget of {tenth:,.6g} ms" in over["message"]
    assert "its -- budget: line" in over["message"]
    assert (over["file"], over["line"]) == (str(queries), _line_of(queries, WHOLE))
    # --max-path-ms for every path; a query's own budget wins over it
    generous = f"-- budget: {measured * 100:.3f}ms"
    _, report, _ = shop.audit(capsys, generous, "", "--max-path-ms", str(tenth))
    paths = _paths(report)
    assert "ADA118" not in paths["all_items"]["findings"], paths["all_items"]
    assert "ADA118" in paths["counted_in_a_cte"]["findings"]  # no budget line: --max-path-ms
    assert "ADA118" not in paths["item"]["findings"]
    (read_part,) = [f for f in report["findings"] if f["code"] == "ADA118" and f["object"] == "bump_all"]
    assert "its read part: the write itself was not run" in read_part["message"]


def test_github_annotations_and_text_point_at_the_query_file(shop: Shop, capsys: Any) -> None:
    queries = shop.query_file()
    args = ["audit", "--dsn", shop.dsn, "--queries", str(queries), "--sample", "0"]
    assert main([*args, "--format", "github"]) == 1
    out = capsys.readouterr().out
    line = _line_of(queries, WHOLE)
    assert f"::error file={queries},line={line},col=1,title=ADA117 reads-large-share all_items::" in out


def test_a_looser_read_share_passes_what_the_default_fails(shop: Shop, capsys: Any) -> None:
    """--max-read-share above what the path reads (the whole table: 1.0) lets it pass."""
    code, report, _ = shop.audit(capsys, "", "", "--max-read-share", "1.5")
    assert "ADA117" not in _paths(report)["all_items"]["findings"]
    assert code == 0, [f for f in report["findings"] if f["severity"] == "error"]


def test_bad_budgets_and_options_are_one_line_exit_2(shop: Shop, capsys: Any) -> None:
    queries = shop.folder / "bad.sql"
    queries.write_text("-- name: q\n-- budget: fast\nSELECT 1 FROM shop.kinds;\n")
    assert main(["audit", "--dsn", shop.dsn, "--queries", str(queries)]) == 2
    err = capsys.readouterr().err
    assert f"{queries}:2:12: expected '-- budget: N ms' or '-- budget: N s' (N > 0), got 'fast'" in err
    assert "Traceback" not in err
    assert main(["audit", "--dsn", shop.dsn, "--queries", str(queries), "--max-path-ms", "nan"]) == 2
    assert "--max-path-ms" in capsys.readouterr().err
    queries.write_text("-- name: q\nSELECT 1 FROM shop.kinds;\n")
    args = ["audit", "--dsn", shop.dsn, "--queries", str(queries), "--max-path-ms", "5", "--no-analyze"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--max-path-ms judges the time EXPLAIN ANALYZE measures: not with --no-analyze" in err
