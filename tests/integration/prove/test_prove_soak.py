"""A short soak on an embedded server: a row per interval ("minute", here 4 s, with
autovacuum's naptime shortened in proportion) with the runs completed, their rate and
latency, and every hot table's and index's size from the server; the verdict is the
judgement of those very rows. Whether a loaded machine keeps its pace over 4 s is not
asserted (the unit tests judge synthetic rows); that autovacuum ran on the live table is."""

from __future__ import annotations

from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.prove.soak_stats import HOT_TABLES, judge
from agentddl.generator.profile import load_default_profile

INTERVAL = 4.0
SOAK = ProveOptions(runs=150, soak_minutes=0.2, soak_interval_seconds=INTERVAL)


def test_a_short_soak_reports_each_interval_and_is_judged_on_its_rows(prove_pool: Pool) -> None:
    options = ProveOptions(**{**SOAK.__dict__, "workers": prove_pool.size})
    request = ProveRequest(load_default_profile(), options, server_settings=(("autovacuum_naptime", "1"),))
    result = run(request, pool=prove_pool)
    (soak,) = result.scenarios
    assert soak.name == "soak" and result.run["soak_minutes"] == 0.2
    rows, counts = soak.series, soak.counts
    assert [r["minute"] for r in rows] == [1, 2, 3] and all(r["seconds"] == INTERVAL for r in rows)
    for row in rows:
        assert row["runs_completed"] > 0 and row["runs_per_second"] > 0 and row["p99_ms"] >= row["p50_ms"] > 0
        assert set(row["tables"]) == set(HOT_TABLES)
        assert row["tables"]["run_queue"]["bytes"] > 0 and row["tables"]["runs"]["bytes"] > 0
        assert {"run_queue_pkey", "run_queue_visible_idx", "runs_pkey"} <= set(row["indexes"])
    # history only grows; the generated thresholds got autovacuum onto the live table
    assert rows[-1]["tables"]["runs"]["bytes"] > rows[0]["tables"]["runs"]["bytes"]
    assert rows[-1]["tables"]["run_queue"]["autovacuums"] > 0
    assert counts["lost_runs"] == 0 and counts["errors"] == 0 and counts["worker_failures"] == 0
    # the queue was still fed at the end, and what it held was drained after the soak
    assert counts["runs_completed"] == counts["runs"] > sum(r["runs_completed"] for r in rows)
    assert counts["drained_after"] == counts["runs"] - sum(r["runs_completed"] for r in rows) > 0
    judged = judge(rows)
    assert {k: counts[k] for k in judged} == judged
    assert soak.held == (not any(judged[k] for k in soak.guarded if k in judged))
