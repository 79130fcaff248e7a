"""The prove rules of the hot projection in Redis (ADP110..ADP113): one guarantee per
scenario, run when the profile has `hot_state.store: redis`. Judged like every prove
rule (`rules.ProveRule`): counts that must be zero."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule


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
    write must find the projection final. Guarded counts: `not_taken_over`,
    `stale_writes_accepted`, `stale_writes_missing`, `newer_projection_damaged`,
    `cancel_missed`, `errors`, `worker_failures`.

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
    - Design source `seeds/004_936814f8a0aebe48.txt`: a Lua script compares the fencing
      token and version and updates in one server-side step; reading, comparing in the
      application and writing again races.
    - Design source `seeds/002_7b1c1d838d77a12b.txt`: the lease token is a capability,
      stored only as a hash.
    - https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
    """

    code = "ADP110"
    name = "stale-hot-writer-refused"
    scenario = "hot_stale_writer"
    remedy = (
        "write the projection only through a Lua script that compares the caller's fencing token "
        "(and lease token) with the projection's and writes in the same step"
    )


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
    lease was renewed only on the module's cadence, and finish it. Guarded counts:
    `no_crash_happened`, `keys_without_ttl`, `hot_leases_outlived`,
    `hot_states_outlived`, `not_taken_over`, `stuck_runs`, `lost_runs`, `errors`,
    `worker_failures`.

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
    - Design source `seeds/004_936814f8a0aebe48.txt`: HSET and EXPIRE in one MULTI/EXEC
      (a write whose TTL was lost leaves a temporary key forever); RUNNING_TTL vs
      TERMINAL_TTL.
    - Design source `seeds/002_7b1c1d838d77a12b.txt`: a crashed worker stops its
      heartbeat and the attempt is reclaimed by elapsed time alone.
    - https://redis.io/docs/latest/commands/expire/
    """

    code = "ADP111"
    name = "hot-state-expires"
    scenario = "hot_expiry"
    remedy = (
        "set every key's TTL in the same server-side step as its write (EXPIRE in the script, "
        "SET ... EX), and leave takeover to the durable lease in PostgreSQL"
    )


class RedisLossKeepsDurableState(ProveRule):
    """Redis losing everything mid-run loses no durable state and costs no run: each
    holder writes its projection again at its next heartbeat.

    ## What it does
    Guarantees that Redis is never the source of truth. In the `hot_flush` scenario
    workers work runs step by step with the hot projection (progress and heartbeats to
    Redis; each step's checkpoint and event, and the durable lease every third of the
    lease, in PostgreSQL) while Redis loses everything twice (FLUSHALL and SCRIPT FLUSH
    on a throwaway server, as a restart without persistence would). Every run must
    succeed with its checkpoints and events exactly 1..n, no holder may give its run up
    (neither for the loss nor for a durable lease renewed too rarely: the runs outlast
    their lease, and a sampler looks for a held run whose durable lease ran out), and
    every run still held a step after a loss must have its projection back, under its
    claim's fencing token. Guarded counts: `loss_untested`, `lost_runs`, `stuck_runs`,
    `broken_history`, `leases_lost`, `leases_lapsed`, `not_rebuilt`, `errors`.

    ## Why is this bad?
    State kept only in Redis goes with a restart, a failover without replication or an
    eviction: a result, a resume point, the fact that a step happened. A worker that
    takes a missing projection for a lost lease abandons healthy runs whenever Redis
    restarts, and they wait a lease for a takeover; one that never writes it again
    leaves a UI without progress until the run ends.

    ## Example
    The re-publication of a missing projection removed from `Holder.beat` in
    `redis/hot_state.py` (`agentddl prove -p hot.yaml --workers 3 --runs 30
    --lease-seconds 1`, on PostgreSQL 18 and Redis 7):
    ```text
    error ADP112 [redis-loss-keeps-durable-state] skip_locked/hot_flush
      stuck_runs=3: runs still in progress when nothing moved any more; leases_lost=3:
      healthy holders that lost their run (Redis loss taken for a lost lease, a lapsed
      lease); not_rebuilt=5: runs still held a step after the loss whose projection was
      not written again.
      fix: keep every state change in PostgreSQL, renew the durable lease every third of
        the lease, and answer a missing projection by writing it again from the holder's
        claim and latest checkpoint
    ```

    ## Use instead
    ```python
    outcome = hot.renew(claim)          # renew_lease.lua
    if outcome == "missing":            # Redis lost it: not a lost lease
        outcome = hot.publish(claim, version + 1, "running", step, progress)
    if clock() - renewed_at >= lease / 3:   # the durable lease, whatever Redis said
        renewed = queries.heartbeat(conn, ...) is not None
    ```

    ## References
    - Design source `seeds/004_936814f8a0aebe48.txt`: lose all of Redis and the run's
      existence and final result must still be explained; Redis loss means the
      projection is regenerated from the run record and checkpoint.
    - https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/
    - https://redis.io/docs/latest/develop/reference/eviction/
    """

    code = "ADP112"
    name = "redis-loss-keeps-durable-state"
    scenario = "hot_flush"
    remedy = (
        "keep every state change in PostgreSQL, renew the durable lease every third of the lease, and "
        "answer a missing projection by writing it again from the holder's claim and latest checkpoint"
    )


class HotReadAuthorizedInPostgres(ProveRule):
    """A run's hot projection is served only after PostgreSQL authorized the read, and
    only when it is this tenant's projection of the run's current claim.

    ## What it does
    Guarantees that reading a run never trusts Redis for who may see it. In the
    `hot_tenant_read` scenario runs of two tenants are held with projections in Redis;
    a worker serving tenant A reads runs as an API would (the module's `view`, with
    `get_run` for A as the loader) against what a careless or hostile writer could
    leave: B's runs with their own projections, B's runs whose projection names tenant
    A, A's runs whose projection names another tenant or carries an older fencing
    token. Nothing of B's may be returned, no projection that is not this claim's of
    this tenant may be shown, and A's intact projections must be (else the read path
    proved nothing). Guarded counts: `probes_missing`, `hot_reads_leaked`,
    `mismatched_projection_served`, `own_projection_not_served`, `errors`,
    `worker_failures`.

    ## Why is this bad?
    A Redis key or hash that contains a tenant id is not an authorization: any process
    that can write Redis can write one, and a bug can write the wrong one. An API that
    answers from Redis first shows one customer another customer's run; one that skips
    the fencing comparison shows a stale attempt's progress as the run's.

    ## Example
    `view` in `redis/hot_state.py` changed to answer from Redis when the projection names
    the caller's tenant, before asking PostgreSQL (`agentddl prove -p hot.yaml --workers
    3 --runs 30 --lease-seconds 1`, on PostgreSQL 18 and Redis 7):
    ```text
    error ADP113 [hot-read-authorized-in-postgres] skip_locked/hot_tenant_read
      hot_reads_leaked=1: reads that returned another tenant's run or projection;
      mismatched_projection_served=1: projections shown though not this claim's of this
      tenant.
      fix: read the durable row with the caller's tenant first (get_run), and add a
        projection only when its tenant and fencing token equal that row's
    ```

    ## Use instead
    ```python
    row = queries.get_run(conn, tenant_id=caller_tenant, run_id=run_id)   # authorizes
    if row is None:
        return None                                  # Redis is never read
    hot = redis.hgetall(f"agent:run:{{{run_id}}}:state")
    if hot.get("tenant") == str(row["tenant_id"]) and hot.get("fencing_token") == str(row["fencing_token"]):
        ...                                          # add step, progress, heartbeat
    ```

    ## References
    - Design source `seeds/004_936814f8a0aebe48.txt`: a tenant id in a Redis key is not
      a permission check; the API checks the run's tenant in PostgreSQL against the
      authenticated principal before reading Redis, and compares attempt and fencing
      token before showing progress.
    - https://www.postgresql.org/docs/current/ddl-rowsecurity.html
    """

    code = "ADP113"
    name = "hot-read-authorized-in-postgres"
    scenario = "hot_tenant_read"
    remedy = (
        "read the durable row with the caller's tenant first (get_run), and add a projection only "
        "when its tenant and fencing token equal that row's"
    )


HOT_RULES: tuple[type[ProveRule], ...] = (
    StaleHotWriterRefused,
    HotStateExpires,
    RedisLossKeepsDurableState,
    HotReadAuthorizedInPostgres,
)
