"""ADT104 workload-blocked."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class WorkloadBlocked(TraceRule):
    """With --load, a runtime query waited longer than --max-blocked-ms on this statement.

    ## What it does
    Reports a statement the runtime's queries waited on longer than `--max-blocked-ms`
    (default 200 ms), with `--load`. The profile's own queries (start a run, claim it, append events,
    heartbeat, checkpoint, read) run on `--connections` sessions while the migration
    applies. A call counts as blocked when the lock watcher saw its session waiting on
    a lock (`pg_stat_activity.wait_event_type = 'Lock'`) while it ran; the wait is
    charged to the statement of the open transaction that took the strongest lock.
    Reports a statement a call waited on longer than `--max-blocked-ms` (default 200).

    ## Why is this bad?
    This is the outage measured rather than predicted: during the deploy, the
    runtime's claims and step writes stalled for that long. Workers miss heartbeats,
    leases expire, requests time out, and the throughput line of the report shows the
    dip.

    ## Example
    ```sql
    BEGIN;
    CREATE INDEX runs_kind_idx ON agent.runs (kind);
    SELECT pg_sleep(0.6);  -- stands for the build time of a big table
    COMMIT;
    ```
    What `agentddl trace --load` observed at the `CREATE INDEX`:
    ```
    locks held   Share agent.runs
    blocked ms   591 (limit 200): the runtime's claims and writes waited for the COMMIT
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY runs_kind_idx ON agent.runs (kind);  -- outside a transaction block
    ```
    Constraints: `NOT VALID`, then `VALIDATE CONSTRAINT` in a transaction of its own.
    Otherwise keep the transaction that holds the lock as short as possible.

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    - https://www.postgresql.org/docs/current/monitoring-stats.html#WAIT-EVENT-LOCK-TABLE
    """

    code = "ADT104"
    name = "workload-blocked"
    severity = "error"

    def check(self, seen: Observed) -> Iterator[Finding]:
        blocked, limit = seen.trace.blocked_ms, seen.limits.max_blocked_ms
        if blocked is None or blocked <= limit:
            return
        yield self.at(
            seen,
            seen.first_locked(),
            f"runtime queries waited up to {blocked:.0f} ms on this statement (limit {limit:.0f} ms).",
            "Use the non-blocking form (CONCURRENTLY, NOT VALID + VALIDATE) "
            "or shorten the transaction holding the lock.",
        )
