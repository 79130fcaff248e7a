"""ADP111 hot-state-expires: the guarantee the `hot_expiry` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.hot_expiry import SCENARIO


class HotStateExpires(ProveRule):
    """A killed worker's hot state in Redis expires by itself, and its run is still taken
    over by time alone in PostgreSQL.

    ## What it does
    Guarantees that a worker that dies holding a run leaves nothing in Redis that lives
    forever, and nothing that keeps its run from moving on. In the `hot_expiry`
    scenario every worker claims a run, publishes its projection, heartbeats and is
    SIGKILLed. Every key of those runs must have carried a TTL from its first write; the
    `:lease` key must be gone a lease after the last heartbeat and the `:state` hash a
    running TTL after the last write (prove's TTLs scale from `--lease-seconds`). Then
    the other workers' polls must take every run over in PostgreSQL, where the durable
    lease was renewed only on the module's cadence, and finish it.

    ## Why is this bad?
    A key written without its TTL (or whose TTL a later write cleared: `SET` without
    `EX` does) outlives the run: a dead worker's projection says "running, 65%" forever,
    and Redis fills with the projections of every run that ever crashed. A TTL set by a
    second command after the write is lost when the process dies between the two.

    ## Example
    `EXPIRE` and the lease key's `EX` removed from the scripts of `redis/hot_state.py`
    (`agentddl prove -p hot.yaml --workers 3 --runs 30 --lease-seconds 1`, on
    PostgreSQL 18 and Redis 7):
    ```text
    error ADP111 [hot-state-expires] skip_locked/hot_expiry
      keys_without_ttl=6: keys of a killed worker's run that had no TTL (would never
      expire); hot_leases_outlived=3: lease keys still there a lease after the holder's
      last heartbeat; hot_states_outlived=3: projections still there a running TTL after
      the holder's last write.
      fix: set every key's TTL in the same server-side step as its write (EXPIRE in the
        script, SET ... EX), and leave takeover to the durable lease in PostgreSQL
    ```

    ## Use instead
    ```lua
    redis.call('HSET', KEYS[1], ...)
    redis.call('EXPIRE', KEYS[1], ARGV[10])          -- same script: no gap to die in
    redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[11])
    ```
    Renew the durable lease in PostgreSQL every third of the lease, however often the
    worker heartbeats to Redis, so takeover stays a matter of time in the database.

    ## References
    - https://redis.io/docs/latest/commands/expire/
    """

    code = "ADP111"
    name = "hot-state-expires"
    scenario = SCENARIO
    remedy = (
        "set every key's TTL in the same server-side step as its write (EXPIRE in the script, "
        "SET ... EX), and leave takeover to the durable lease in PostgreSQL"
    )
