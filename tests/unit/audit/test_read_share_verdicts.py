"""ADA117 (rows read of a large table, over every node of a plan) and ADA118 (a path's
measured time against its budget) on made-up plans; `-- budget:` lines and the
statement's line in query files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog, summarize
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.generator.errors import AgentDDLError

SIZE = 300_000.0
CATALOG = Catalog(
    schema="shop",
    rows={"items": SIZE, "items_pkey": SIZE, "kinds": 50.0},
    parent={},
    partitions={},
    partition_key={},
    index_table={"items_pkey": "items"},
    index_columns={"items_pkey": ("id",)},
    unique=frozenset({"items_pkey"}),
    constraint_indexes=frozenset({"items_pkey"}),
)
PATH = AuditPath("p", "SELECT 1", (), "items", None, "user", "q.sql:1")
DEFAULT = Thresholds()


def _index_scan(actual: float | None, estimate: float = SIZE, relation: str = "items") -> dict[str, Any]:
    node: dict[str, Any] = {
        "Node Type": "Index Scan",
        "Relation Name": relation,
        "Index Name": "items_pkey",
        "Index Cond": "(id > 0)",
        "Plan Rows": estimate,
        "Total Cost": 9000.0,
    }
    if actual is not None:
        node |= {"Actual Loops": 1, "Actual Rows": actual, "Actual Total Time": 40.0}
    return node


def _codes(root: dict[str, Any], limits: Thresholds = DEFAULT, path: AuditPath = PATH) -> list[str]:
    document = {"Plan": root} | ({"Execution Time": 45.0} if "Actual Loops" in str(root) else {})
    return [f.code for f in judge(path, summarize(document, CATALOG, 16), CATALOG, limits)]


def _over(child: dict[str, Any], node: str = "Aggregate", **more: Any) -> dict[str, Any]:
    return {"Node Type": node, "Plan Rows": 1, "Total Cost": 9100.0, "Plans": [child], **more}


def test_an_index_scan_reading_the_whole_table_fails_a_lookup_passes() -> None:
    assert _codes(_index_scan(SIZE)) == ["ADA117"]
    assert _codes(_index_scan(1, estimate=1)) == []
    assert _codes(_index_scan(SIZE * 0.4)) == []  # under half the table
    assert _codes(_index_scan(SIZE * 0.4), Thresholds(read_share=0.3)) == ["ADA117"]


def test_a_limit_passes_on_what_it_read_and_is_left_out_when_only_planned() -> None:
    assert _codes(_over(_index_scan(100), "Limit")) == []  # measured: the LIMIT stopped it
    assert _codes(_over(_index_scan(None), "Limit")) == []  # planned only: it may stop early
    assert _codes(_over(_index_scan(None))) == ["ADA117"]  # planned only, nothing stops it


def test_reads_under_subplans_ctes_and_writes_are_added_up() -> None:
    """Two scans of 30% each (an InitPlan and the write's own scan) read 60%."""
    init = _index_scan(SIZE * 0.3) | {"Parent Relationship": "InitPlan", "Subplan Name": "InitPlan 1"}
    write = {
        "Node Type": "ModifyTable",
        "Operation": "Update",
        "Relation Name": "items",
        "Plan Rows": 0,
        "Total Cost": 9500.0,
        "Actual Loops": 1,
        "Actual Rows": 0,
        "Plans": [_index_scan(SIZE * 0.3), init],
    }
    assert _codes(write) == ["ADA117"]
    cte = _over(_index_scan(SIZE * 0.3) | {"Parent Relationship": "InitPlan"}, "CTE Scan")
    assert _codes(cte) == []  # one of them: 30%


def test_a_small_table_and_an_unindexed_search_are_not_this_rules() -> None:
    assert _codes(_index_scan(50, relation="kinds")) == []
    seq = {"Node Type": "Seq Scan", "Relation Name": "items", "Plan Rows": 3, "Total Cost": 5000.0}
    assert _codes(seq) == ["ADA101"]  # reads it all to keep 3: an index is the fix (ADA101)
    assert _codes(seq | {"Plan Rows": SIZE}) == ["ADA117"]  # keeps it all: the path reads too much


def test_budget_over_and_under_and_not_timed() -> None:
    lookup = _index_scan(1, estimate=1)  # Execution Time: 45 ms
    assert _codes(lookup, Thresholds(max_path_ms=10)) == ["ADA118"]
    assert _codes(lookup, Thresholds(max_path_ms=100)) == []
    assert _codes(lookup, path=replace(PATH, budget_ms=100), limits=Thresholds(max_path_ms=10)) == []
    assert _codes(lookup, path=replace(PATH, budget_ms=10)) == ["ADA118"]
    planned = _index_scan(None, estimate=1)
    document = {"Plan": planned}
    (info,) = judge(replace(PATH, budget_ms=10), summarize(document, CATALOG, 16), CATALOG, Thresholds())
    assert (info.code, info.severity) == ("ADA118", "info") and "not judged" in info.message


def test_budget_lines_and_the_statements_line(tmp_path: Path) -> None:
    path = tmp_path / "q.sql"
    path.write_text(
        "-- name: a\n-- A comment.\n-- budget: 50ms\n\nSELECT 1\nFROM t;\n\n"
        "-- name: b(k)\n-- budget: 1.5 s\n-- example: k = 1\nSELECT :k;\n"
    )
    a, b = load_query_file(path)
    assert (a.budget_ms, a.file, a.line) == (50.0, str(path), 5)
    assert (b.budget_ms, b.line) == (1500.0, 11)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("-- name: q\n-- budget: 50\nSELECT 1;\n", "2:12: expected '-- budget: N ms' or '-- budget: N s'"),
        ("-- name: q\n-- budget: 0ms\nSELECT 1;\n", "2:12: expected '-- budget: N ms'"),
        ("-- name: q\n--budget: 5 minutes\nSELECT 1;\n", "2:11: expected '-- budget: N ms'"),
        ("-- budget: 5ms\n-- name: q\nSELECT 1;\n", "1:1: '-- budget:' before any '-- name:' block"),
        ("-- name: q\n-- budget: 5ms\n-- budget: 6ms\nSELECT 1;\n", "3:1: query 'q' has a second"),
    ],
)
def test_budget_mistakes_name_file_line_column(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "q.sql"
    path.write_text(text)
    with pytest.raises(AgentDDLError) as caught:
        load_query_file(path)
    assert str(caught.value).startswith(f"{path}:{where}"), str(caught.value)


def test_a_foreign_keys_action_reads_rows_changed_times_one_lookup() -> None:
    """900 owners deleted, 300 items each read by the cascade's lookup: 270,000 of 300,000."""
    from agentddl.checks.audit.fkactions import ForeignKey, with_fk_actions
    from agentddl.checks.audit.planning import PathResult

    fk = ForeignKey("items_owner_fkey", "items", ("owner_id",), "owners", ("id",), "CASCADE", "NO ACTION")
    delete = {"Node Type": "ModifyTable", "Operation": "Delete", "Relation Name": "owners", "Plan Rows": 0}
    delete |= {"Total Cost": 30.0, "Actual Loops": 1, "Actual Rows": 0}

    def judged(owners: float) -> list[str]:
        scan = {"Node Type": "Seq Scan", "Relation Name": "owners", "Plan Rows": owners, "Total Cost": 20.0}
        scan |= {"Actual Loops": 1, "Actual Rows": owners}
        firing = replace(PATH, name="drop_owners", deletes=("owners",))
        plan = summarize({"Plan": delete | {"Plans": [scan]}, "Execution Time": 5.0}, CATALOG, 16)
        lookup_plan = summarize({"Plan": _index_scan(300, estimate=300)}, CATALOG, 16)
        lookup = PathResult(replace(PATH, name="items_owner_fkey (cascade)"), lookup_plan)
        (result,) = with_fk_actions(
            [PathResult(firing, plan)], [fk], CATALOG, DEFAULT, {fk.lookup_name: lookup}
        )
        return [f.message for f in result.findings if f.code == "ADA117"]

    (message,) = judged(900)
    assert message.startswith("drop_owners reads 270,000 rows of shop.items's 300,000 (90%")
    assert "it deletes ~900 shop.owners rows, each one's 300 referencing rows read" in message
    assert judged(7) == []  # 2,100 rows of the child
