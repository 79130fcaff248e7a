"""The soak's figures: what the server says about the hot tables at the end of each
interval (`sample`), the interval's rows (`interval_rows`: throughput and latency
percentiles from the workers' timings, with the server's sample), and the judgement
(`judge`: the issue's bars, as counts that must be zero).

The latency is a run's, claim to complete, as its worker saw it: from the `claim_run`
call that returned the run to the `COMMIT` of `complete_attempt`, every named query of
the run's path in between (heartbeat, append_event, save_checkpoint). That is what a
queue's user waits for and what a DBRE reads first; a slow query shows in it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

# The tables every run writes; run_queue is the live one (updated by every query of a
# run's path, each row deleted at completion): it must keep its size under steady load.
HOT_TABLES = ("run_queue", "runs", "attempts", "events", "checkpoints")
LIVE_TABLE = "run_queue"
WORSE = 1.2  # the last interval's throughput or p99 worse than this x the second's: degraded
GROWTH = 2.0  # the live table after the soak larger than this x after the first interval: unbounded

# Partitioned tables and indexes are summed over their leaves; a plain one is its own leaf.
LEAVES = (
    "SELECT p.relid FROM pg_partition_tree({0}.oid) AS p WHERE p.isleaf "
    "UNION SELECT {0}.oid WHERE {0}.relkind NOT IN ('p', 'I')"
)
TABLES_SQL = """
SELECT h.relname AS name,
       sum(pg_relation_size(t.relid))::bigint AS bytes,
       sum(pg_indexes_size(t.relid))::bigint AS index_bytes,
       coalesce(sum(s.n_live_tup), 0)::bigint AS live_tuples,
       coalesce(sum(s.n_dead_tup), 0)::bigint AS dead_tuples,
       coalesce(sum(s.autovacuum_count), 0)::bigint AS autovacuums
FROM pg_class AS h
CROSS JOIN LATERAL ({leaves}) AS t
LEFT JOIN pg_stat_all_tables AS s ON s.relid = t.relid
WHERE h.relnamespace = {schema}::regnamespace AND h.relname = ANY({tables})
GROUP BY h.relname
"""
INDEXES_SQL = """
SELECT h.relname AS table_name, i.relname AS name, sum(pg_relation_size(t.relid))::bigint AS bytes
FROM pg_class AS h
JOIN pg_index AS x ON x.indrelid = h.oid
JOIN pg_class AS i ON i.oid = x.indexrelid
CROSS JOIN LATERAL ({index_leaves}) AS t
WHERE h.relnamespace = {schema}::regnamespace AND h.relname = ANY({tables})
GROUP BY h.relname, i.relname
ORDER BY h.relname, i.relname
"""


def sample(conn: psycopg.Connection[Any], schema: str) -> dict[str, Any]:
    """Each hot table's size (bytes, its indexes' bytes), live and dead tuples and
    autovacuum runs so far, and each of their indexes' size, now; and this machine's
    load (1-minute average: the workers run here, and a shared machine's neighbours
    show in the throughput)."""
    conn.execute("SELECT pg_stat_clear_snapshot()")  # fresh statistics, not the transaction's
    names = {
        "schema": sql.Literal(schema),
        "tables": sql.Literal(list(HOT_TABLES)),
        "leaves": sql.SQL(LEAVES.format("h")),
        "index_leaves": sql.SQL(LEAVES.format("i")),
    }
    tables = conn.execute(sql.SQL(TABLES_SQL).format(**names)).fetchall()
    indexes = conn.execute(sql.SQL(INDEXES_SQL).format(**names)).fetchall()
    return {
        "load": round(os.getloadavg()[0], 1),
        "tables": {row["name"]: {k: int(v) for k, v in row.items() if k != "name"} for row in tables},
        "indexes": {row["name"]: int(row["bytes"]) for row in indexes},
    }


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (`share` of 1) of `values`; 0.0 when there are none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def interval_rows(
    boundaries: Sequence[float], latencies: Sequence[Sequence[float]], samples: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per interval: its number (from 1) and length, the runs completed in it,
    their rate, p50 and p99 claim-to-complete in ms, then the server's sample at its end."""
    rows = []
    for index, (end, times, stats) in enumerate(zip(boundaries, latencies, samples, strict=True)):
        seconds = end - (boundaries[index - 1] if index else 0.0)
        rows.append(
            {
                "minute": index + 1,
                "seconds": round(seconds, 1),
                "runs_completed": len(times),
                "runs_per_second": round(len(times) / seconds, 1) if seconds else 0.0,
                "p50_ms": round(percentile(times, 0.50) * 1000, 2),
                "p99_ms": round(percentile(times, 0.99) * 1000, 2),
                **stats,
            }
        )
    return rows


def judge(rows: Sequence[dict[str, Any]]) -> dict[str, int | float]:
    """The issue's bars on the rows (at least three: the first is the warm-up, the second
    the baseline): the last interval's throughput and p99 within WORSE x the second's,
    the live table's size after the last interval within GROWTH x its size after the
    first; and its indexes' within GROWTH x theirs after the second (a B-tree fills to
    its steady size only once autovacuum has run: the first interval ends before the
    default one-minute naptime has let it). The ratios, and a count per bar missed."""
    second, last = rows[1], rows[-1]
    live = [row["tables"][LIVE_TABLE] for row in (rows[0], second, last)]
    pairs = {
        "throughput": (last["runs_per_second"], second["runs_per_second"]),
        "p99": (last["p99_ms"], second["p99_ms"]),
        "table": (live[2]["bytes"], live[0]["bytes"]),
        "indexes": (live[2]["index_bytes"], live[1]["index_bytes"]),
    }
    return {
        "throughput_last_to_second": _ratio(*pairs["throughput"]),
        "p99_last_to_second": _ratio(*pairs["p99"]),
        "live_table_growth": _ratio(*pairs["table"]),
        "live_index_growth_from_second": _ratio(*pairs["indexes"]),
        # judged on the figures, not the rounded ratios
        "throughput_degraded": int(pairs["throughput"][0] * WORSE < pairs["throughput"][1]),
        "p99_degraded": int(pairs["p99"][0] > WORSE * pairs["p99"][1]),
        "live_table_grew": int(pairs["table"][0] > GROWTH * pairs["table"][1]),
        "live_indexes_grew": int(pairs["indexes"][0] > GROWTH * pairs["indexes"][1]),
    }


NO_BASELINE = 999.0  # later / 0: JSON has no infinity


def _ratio(later: float, earlier: float) -> float:
    """later / earlier, rounded; nothing before and something after: NO_BASELINE."""
    if not earlier:
        return 1.0 if not later else NO_BASELINE
    return round(later / earlier, 3)
