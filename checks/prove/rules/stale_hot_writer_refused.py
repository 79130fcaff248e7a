"""ADP110 stale-hot-writer-refused: the guarantee the `hot_stale_writer` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.hot_stale_writer import SCENARIO


class StaleHotWriterRefused(ProveRule):
    """A worker whose run was taken over cannot change the run's projection in Redis:
    the Lua scripts compare its fencing token and write in one server-side step.

    ## What it does
    Guarantees that a worker whose run was taken over changes nothing of the run's hot
    projection in Redis. In the `hot_stale_writer` scenario worker A claims a run,
    publishes its projection (`fenced_update`), and stalls past its lease; worker B
    takes the run over in PostgreSQL and publishes its own. A wakes up and writes as if
    it still held the run: progress with a write count higher than anything B wrote, a
    heartbeat (`renew_lease`), and progress under B's fencing token with its own lease
    token. Each must be refused, B's projection must still be B's, and after B ends the
    run (completed: PostgreSQL first, then the terminal projection; or cancelled:
    `transition_run`, then `cancel`, which B's next heartbeat must report) any later
    write must find the projection final.

    ## Why is this bad?
    Without the fence in the script the last writer wins, not the current holder: a
    worker back from a GC pause or a partition overwrites the progress of the attempt
    that took its run over (a UI jumps from 70% back to 60%, shows a step that is no
    longer running, or an attempt that no longer exists). A compare done by the client
    (read, compare, then write) has a gap between the read and the write for exactly
    that late writer to fall into.

    ## Example
    The fencing-token comparison removed from `fenced_update` in `redis/hot_state.py`
    (`agentddl prove -p hot.yaml --workers 3 --runs 30 --lease-seconds 1`, on
    PostgreSQL 18 and Redis 7):
    ```text
    error ADP110 [stale-hot-writer-refused] skip_locked/hot_stale_writer
      stale_writes_accepted=6: Redis writes of a taken-over worker, or under a token it
      lacks, accepted; newer_projection_damaged=2: runs whose newer projection was not
      the newer holder's afterwards.
      fix: write the projection only through a Lua script that compares the caller's
        fencing token (and lease token) with the projection's and writes in the same step
    ```

    ## Use instead
    ```lua
    local held = redis.call('HMGET', KEYS[1], 'fencing_token', 'version', 'lease_proof', 'status')
    local held_fence = tonumber(held[1])
    if held_fence and tonumber(ARGV[1]) < held_fence then
      return {0, 'stale'}          -- a newer claim holds the run: refuse, in the same step
    end
    redis.call('HSET', KEYS[1], 'fencing_token', ARGV[1], ...)
    ```

    ## References
    - https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
    """

    code = "ADP110"
    name = "stale-hot-writer-refused"
    scenario = SCENARIO
    remedy = (
        "write the projection only through a Lua script that compares the caller's fencing token "
        "(and lease token) with the projection's and writes in the same step"
    )
