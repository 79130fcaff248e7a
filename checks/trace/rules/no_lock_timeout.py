"""ADT105 no-lock-timeout."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Observed, TraceRule


class NoLockTimeout(TraceRule):
    """A statement took a lock that blocks writes on an existing table with lock_timeout off.

    ## What it does
    Reports a statement that took a lock blocking writes on an existing table with
    `lock_timeout` off. The lock is SHARE or stronger (ACCESS EXCLUSIVE blocks reads
    too) on a relation that existed before the migration; `lock_timeout` is 0 in its
    session: the setting as the server reported it when
    the statement started, so `SET lock_timeout` earlier in the migration, in the role
    or database defaults, or in the DSN's options all count.

    ## Why is this bad?
    A lock request waits behind every conflicting lock already held: a long report
    query, a session idle in a transaction, an autovacuum. While it waits it sits in
    the lock queue, and every query that arrives after it and conflicts with the mode
    it asked for waits behind it: with ACCESS EXCLUSIVE, every query of the table. On a
    quiet scratch database the lock is granted at once; in production one slow reader
    turns a millisecond `ALTER TABLE` into an outage. `lock_timeout` turns that wait
    into a quick failure (SQLSTATE 55P03) the deploy can retry.

    ## Example
    ```sql
    ALTER TABLE public.orders ADD COLUMN created_at timestamptz DEFAULT now();
    ```
    What trace observed:
    ```
    locks held   AccessExclusive public.orders
    timeouts     lock_timeout 0 ms
    ```

    ## Use instead
    ```sql
    SET lock_timeout = '2s';
    ALTER TABLE public.orders ADD COLUMN created_at timestamptz DEFAULT now();
    ```
    and retry the migration (with a backoff) when it fails with `lock_not_available`.

    ## References
    - https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT
    - https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES
    """

    code = "ADT105"
    name = "no-lock-timeout"
    severity = "warning"

    def check(self, seen: Observed) -> Iterator[Finding]:
        if not seen.took_write_blocking_lock or seen.trace.lock_timeout_ms != 0:
            return
        lock = seen.strongest
        yield self.at(
            seen,
            lock.relation,
            f"took {lock.mode} on {lock.relation} with lock_timeout off: queued behind "
            "a long query, it would stall every query behind it.",
            "SET lock_timeout = '2s' (and retry) before statements that take strong locks.",
        )
