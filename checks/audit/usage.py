"""How production uses each index: pg_stat_user_indexes' scan counter and the size.

Counters are per leaf index: a partitioned index adds up its partitions'. They count
since the statistics were last reset (`pg_stat_database.stats_reset`), else since the
server started; the audit says which, so "0 scans" is read against how long it counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.checks.audit.plan import Catalog

_USAGE = """
SELECT s.indexrelname, s.idx_scan, pg_relation_size(s.indexrelid)
FROM pg_stat_user_indexes AS s WHERE s.schemaname = %(schema)s
"""
_SINCE = """
SELECT coalesce(
    (SELECT 'the statistics reset of ' || to_char(stats_reset, 'YYYY-MM-DD HH24:MI TZ')
     FROM pg_stat_database WHERE datname = current_database() AND stats_reset IS NOT NULL),
    'the server start at ' || to_char(pg_postmaster_start_time(), 'YYYY-MM-DD HH24:MI TZ'))
"""


@dataclass(frozen=True)
class IndexUsage:
    scans: int
    bytes: int


@dataclass(frozen=True)
class Usage:
    indexes: dict[str, IndexUsage]  # root index -> its (partitions') counters
    since: str  # "the statistics reset of ...", "the server start at ..."

    def of(self, index: str) -> IndexUsage:
        return self.indexes.get(index, IndexUsage(0, 0))


def read_usage(conn: psycopg.Connection[Any], catalog: Catalog) -> Usage:
    found: dict[str, IndexUsage] = {}
    for name, scans, size in conn.execute(_USAGE, {"schema": catalog.schema}).fetchall():
        root = catalog.root(name)
        earlier = found.get(root, IndexUsage(0, 0))
        found[root] = IndexUsage(earlier.scans + int(scans or 0), earlier.bytes + int(size or 0))
    row = conn.execute(_SINCE).fetchone()
    return Usage(found, str(row[0]) if row else "the server start")


def megabytes(size: int) -> str:
    return f"{size / 1048576:,.1f} MB" if size >= 1048576 else f"{size / 1024:,.0f} kB"
