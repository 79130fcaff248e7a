"""The prove rules: one guarantee per scenario (ADP101..ADP109, ADP114).

A scenario drives one guarantee with real worker processes and crashes and judges it
by counts that must be zero. A broken scenario is an error finding of its rule, on
`object="<strategy>/<scenario>"`, its message naming every count that is not zero; a
scenario that held reports nothing. The docstrings are the rule pages
(`python -m agentddl.checks.docs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.rules import Rule

if TYPE_CHECKING:
    from agentddl.checks.prove.result import ScenarioResult

WORKER_FAILURE = "worker failure: "  # a violation that is a worker's last traceback line, not a count


class ProveRule(Rule):
    """Base of the prove rules: the scenario that drives the guarantee and the fix."""

    family = "prove"
    severity = "error"
    scenario: ClassVar[str]  # the module under agentddl.checks.prove.scenarios
    remedy: ClassVar[str]  # the finding's fix: the schema or query mechanism that keeps it

    @classmethod
    def broken(cls, result: ScenarioResult) -> Finding:
        """The finding of a broken run of the scenario: every non-zero guarded count,
        by name, value and meaning (and the workers' failures, if any)."""
        counts = [f"{key}={value}: {result.guarded[key]}" for key, value in result.broken_counts.items()]
        failures = [v for v in result.violations if v.startswith(WORKER_FAILURE)]
        what = "; ".join(counts + failures) or "; ".join(result.violations)
        return cls.finding(f"{what}.", cls.remedy, object=f"{result.strategy}/{result.name}")


class OneClaimPerRun(ProveRule):
    """Every queued run is claimed by exactly one live attempt at a time: none twice,
    none skipped.

    ## What it does
    Guarantees that every queued run is claimed by exactly one live attempt at a time,
    none twice and none skipped, however many workers poll at once. The `claim_race`
    scenario has `--workers` processes drain `--runs` queued runs with `claim_run`
    (after `expire_leases`, as every poll does), under a lease long enough that no
    claim may legitimately expire. Each worker journals every claim and every step's
    effect; a sampler looks for a run with two active attempts while the race runs;
    afterwards the attempts' history is checked for overlapping attempts. Then the
    invariant itself: while a worker holds a run, a second active attempt inserted by
    the app role must be refused by the database. Guarded counts: `double_claims`,
    `duplicate_effects`, `overlapping_attempts`, `sampled_double_active`, `lost_runs`,
    `second_active_attempt_accepted`, `second_active_attempt_untested`, `errors`.

    ## Why is this bad?
    Two workers on one run do every step twice: two tool calls, two payments, two
    emails, two agents editing the same branch. A run no worker claims waits forever.
    A claim guarded only by the application (read, then update) has a time-of-check to
    time-of-use gap that opens under exactly the load production has.

    ## Example
    `claim_run` without `FOR UPDATE SKIP LOCKED` and its `status = 'queued'` recheck,
    and the one-active-attempt index dropped (`agentddl prove --dsn ... --workers 4
    --runs 100`, on PostgreSQL 18):
    ```text
    error ADP101 [one-claim-per-run] skip_locked/claim_race
      double_claims=35: runs claimed more than once; duplicate_effects=42: steps done
      twice (two claims worked one run); overlapping_attempts=35: runs with two live
      attempts at once (attempts history); sampled_double_active=66: samples that caught a
      run with two active attempts; lost_runs=1: runs never completed (skipped or lost);
      second_active_attempt_accepted=1: a second active attempt of a held run the database
      accepted; errors=1: named queries that raised.
      fix: claim with the strategy's guard (SKIP LOCKED with a status recheck,
        compare-and-set on version, or an advisory lock) and keep the partial unique index
        of one active attempt per run
    ```

    ## Use instead
    Claim with the strategy's guard, and let the table refuse a second live attempt:
    ```sql
    -- skip_locked: concurrent claims skip the row another claim holds, and recheck it
    SELECT tenant_id, run_id FROM agent.runs
    WHERE status = 'queued' AND wake_at <= now()
    ORDER BY priority DESC, wake_at LIMIT 1
    FOR UPDATE SKIP LOCKED;
    -- every strategy: at most one active attempt per run, whatever the query does
    CREATE UNIQUE INDEX attempts_one_active_key ON agent.attempts (tenant_id, run_id)
        WHERE status = 'active';
    ```

    ## References
    - Design source `seeds/002_7b1c1d838d77a12b.txt`: ownership enforced by the
      database, not by convention: a partial unique index allows one active attempt
      per issue, so of two racing claims one INSERT fails.
    - Design source `seeds/003_6aacb13a2f5f2d92.txt`: under concurrency "check, then
      insert" races; a unique constraint cannot be replaced by it.
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    - https://www.postgresql.org/docs/current/indexes-partial.html
    - https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
    """

    code = "ADP101"
    name = "one-claim-per-run"
    scenario = "claim_race"
    remedy = (
        "claim with the strategy's guard (SKIP LOCKED with a status recheck, compare-and-set on "
        "version, or an advisory lock) and keep the partial unique index of one active attempt per run"
    )


class CrashedRunTakenOver(ProveRule):
    """A worker that dies mid-step never leaves its run stuck: the lease expires by
    time alone, another worker takes the run over and resumes it from its latest
    checkpoint.

    ## What it does
    Guarantees that a worker killed mid-step never leaves its run stuck: its lease
    expires by time alone and another worker takes the run over from its latest
    checkpoint, with no human, no reaper and no `expire_leases` call. In the
    `crash_mid_step` scenario workers SIGKILL themselves at four points of a run's
    first attempt: right after the claim, inside a heartbeat's transaction, after a
    step's writes before `COMMIT`, right after a step's `COMMIT`. The other workers'
    `claim_run` must take each run over once its lease runs out, in the claim itself
    (the killed attempt ends `expired`, the new one opens); the takeover reads the
    latest checkpoint back and resumes after it.
    Observed in the database (every succeeded run has checkpoints and events exactly
    1..n, killed attempts ended `expired`), the journal (what each takeover resumed
    from) and whatever is still live when nothing moves. Guarded counts:
    `no_crash_happened`, `stuck_runs`, `lost_runs`, `not_taken_over`,
    `broken_history`, `resumed_wrong`, `overlapping_attempts`, `errors`.

    ## Why is this bad?
    Workers die: OOM kills, deploys, preempted nodes, closed laptops. A run whose
    status says "running" after its worker died is a tombstone nobody may clear; a
    takeover that restarts from zero pays for every step (and every model call) twice,
    one that resumes from a half-written checkpoint continues from a state that never
    committed.

    ## Example
    `claim_run` changed to take a lapsed run over only a day after its lease ran out
    (a reaper someone must run) (`agentddl prove --dsn ... --workers 4 --runs 100`, on
    PostgreSQL 18):
    ```text
    error ADP102 [crashed-run-taken-over] skip_locked/crash_mid_step
      stuck_runs=4: runs still in progress when nothing moved any more; not_taken_over=4:
      killed attempts whose run was never taken over by time.
      fix: let the claim take over a run whose lease ran out (by time alone, fenced by the
        expired attempt's token), and resume from the latest committed checkpoint
    ```

    ## Use instead
    An attempt is valid only until its lease; the claim itself takes a lapsed run over,
    ending the old attempt before the new one opens, fenced so a run that moved on is
    left alone, and readers derive the status from the lease:
    ```sql
    WITH lapsed AS (SELECT ... FROM agent.attempts AS a JOIN agent.runs AS r USING (...)
                    WHERE a.status = 'active' AND a.lease_expires_at < now()
                      AND r.status = 'running' AND r.fencing_token = a.fencing_token ...),
    ended AS (UPDATE agent.attempts SET status = 'expired' ... RETURNING ...),
    claimed AS (UPDATE agent.runs SET fencing_token = fencing_token + 1 ...
                WHERE ... AND EXISTS (SELECT FROM ended ...))
    INSERT INTO agent.attempts ...;                         -- one statement, no reaper
    ```
    Write each step's checkpoint and event in one transaction, so the latest
    checkpoint is always a committed one.

    ## References
    - Design source `seeds/002_7b1c1d838d77a12b.txt`: leases expire; a crashed,
      hung or killed agent stops its heartbeat and the server reclaims the attempt by
      elapsed time alone; checkpoints make a resume not a restart.
    - Design source `seeds/004_936814f8a0aebe48.txt`: a worker restarted mid-run
      resumes from a serializable, versioned checkpoint.
    - https://www.postgresql.org/docs/current/tutorial-transactions.html
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP102"
    name = "crashed-run-taken-over"
    scenario = "crash_mid_step"
    remedy = (
        "let the claim take over a run whose lease ran out (by time alone, fenced by the expired "
        "attempt's token), and resume from the latest committed checkpoint"
    )


class StaleWriterRejected(ProveRule):
    """A worker whose run was taken over can change nothing: every late write is
    refused by the version or fencing check, and the newer attempt's work stays
    intact.

    ## What it does
    Guarantees that a worker whose run was taken over can change nothing: every late
    write is refused by the fencing or version check. In the `stale_writer` scenario
    worker A claims a run, writes step 1 and reserves an operation, then stalls past
    its lease (a GC pause, a network partition). Worker B's claim takes the run over
    once the lease has run out. A wakes up and writes as if it still held the run: a transition from
    the version it read, checkpoint 2, event 2, a new operation, the result of the
    operation B took over, a heartbeat, completion. Each must be refused (no row, or a
    constraint's refusal); then B's own writes and read-backs must go through
    untouched. Guarded counts: `not_taken_over`, `stale_writes_accepted`,
    `stale_writes_missing`, `newer_state_damaged`, `errors`, `worker_failures`.

    ## Why is this bad?
    Without fencing the last writer wins, not the current owner: a late "running"
    overwrites a recorded "cancelled", an old attempt's checkpoint replaces the newer
    one (the run resumes from the past), an effect B already took over is recorded
    with A's result. None of it raises an error; the data is simply wrong.

    ## Example
    The fencing check removed from the history and operation writes of `queries.sql`
    (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP103 [stale-writer-rejected] skip_locked/stale_writer
      stale_writes_accepted=8: writes of a taken-over worker that were accepted;
      newer_state_damaged=2: runs where the newer attempt's writes or read-backs failed;
      errors=2: named queries that raised.
      fix: fence every write with the run's current fencing token (and lease token) or its
        expected version, so a writer whose claim was taken over changes nothing
    ```

    ## Use instead
    Every write names the claim it comes from; a claim bumps the run's fencing token,
    so an older claim's write matches no row:
    ```sql
    INSERT INTO agent.checkpoints (...)
    SELECT ... FROM agent.runs AS r
    WHERE r.run_id = :run_id AND r.fencing_token = :fencing_token AND r.status = 'running';
    UPDATE agent.runs SET status = :to_status, version = version + 1
    WHERE run_id = :run_id AND version = :expected_version;   -- 0 rows: re-read, never overwrite
    ```

    ## References
    - Design source `seeds/004_936814f8a0aebe48.txt`: `current_attempt_id` and
      `fencing_token` change with each claim, and later writes are accepted only when
      they match that generation.
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: check that the update changed one
      row before commit; zero rows means another worker moved on, so a stale worker
      re-reads instead of overwriting.
    - https://www.postgresql.org/docs/current/sql-update.html
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP103"
    name = "stale-writer-rejected"
    scenario = "stale_writer"
    remedy = (
        "fence every write with the run's current fencing token (and lease token) or its expected "
        "version, so a writer whose claim was taken over changes nothing"
    )


class ForgedLeaseRejected(ProveRule):
    """Every write of an attempt's work needs the attempt's lease token: a caller who
    knows the run and its fencing token but not the token changes nothing.

    ## What it does
    Guarantees that every write of an attempt's work is a capability: the caller must
    present the attempt's lease token, which the database checks against its stored
    sha256, and a guessed or stolen fencing token is not enough. In the `forged_lease`
    scenario holders claim runs, write step 1 and reserve an operation, and keep their
    leases live. An attacker that knows each run's key, its current fencing token (a
    small counter) and the holder's operation key, but not the lease token, tries
    every write with a token of its own: `heartbeat`, `append_event`,
    `save_checkpoint`, `reserve_operation`, `complete_operation`, `fail_attempt`,
    `interrupt_attempt`, `complete_attempt`, and those of the model's parts where the
    profile has them (`start_node`, `request_approval`, `append_attempt_note`,
    `record_step`). Each must return no row; then the
    holders' own writes and read-backs must go through untouched. Guarded counts:
    `forged_writes_accepted`, `forged_writes_missing`, `holder_state_damaged`,
    `errors`, `worker_failures`.

    ## Why is this bad?
    A fencing token orders claims; it is not a secret. Anything that can reach the
    database with the app role and guess a run's current token (1, 2, 3, ...) can
    append events to its history, replace its resume point, record an effect's
    result it never produced, or finish the run: a confused or compromised worker
    corrupts runs it never held, and nothing in the data says so.

    ## Example
    The lease-token check removed from the history and operation writes of
    `queries.sql` (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL
    18):
    ```text
    error ADP108 [forged-lease-rejected] skip_locked/forged_lease
      forged_writes_accepted=8: writes with a forged lease token (right run, right fencing
      token) that were accepted.
      fix: make every write of an attempt's work present the attempt's lease token and
        check its hash in the statement, next to the fencing token
    ```

    ## Use instead
    The lease token is returned once, stored only as its hash, and presented with
    every write of the attempt's work:
    ```sql
    INSERT INTO agent.events (...)
    SELECT ... FROM agent.attempts AS a JOIN agent.runs AS r USING (tenant_id, run_id)
    WHERE a.run_id = :run_id AND a.status = 'active'
      AND a.fencing_token = :fencing_token
      AND a.lease_token_hash = sha256(convert_to(:lease_token, 'UTF8'))
      AND r.fencing_token = a.fencing_token AND r.status = 'running'
    FOR KEY SHARE OF a FOR SHARE OF r;
    ```

    ## References
    - Design source `seeds/002_7b1c1d838d77a12b.txt`: the token is a capability, not
      an identity; the raw lease token is returned exactly once and only its hash is
      stored; every mutating call on an attempt must present attempt_id + lease_token.
    - https://www.postgresql.org/docs/current/functions-binarystring.html
    """

    code = "ADP108"
    name = "forged-lease-rejected"
    scenario = "forged_lease"
    remedy = (
        "make every write of an attempt's work present the attempt's lease token and check its "
        "hash in the statement, next to the fencing token"
    )


class EffectOncePerKey(ProveRule):
    """A side effect asked for under one idempotency key happens exactly once; the same
    input gets the first result, a different input a conflict.

    ## What it does
    Guarantees that a side effect asked for under one idempotency key happens exactly
    once, however many workers ask at the same moment. In the `idempotency` scenario
    every worker holds a run and asks for the same effects under the same keys, all at
    once (`reserve_operation`, the effect, `complete_operation`); for each key one
    worker asks with a different input. The journal is the outside world: each effect
    performed (the API call the key guards) and what every request got back. Guarded
    counts: `duplicate_effects`, `keys_without_effect`, `wrong_results`,
    `conflicts_missed`, `unanswered`, `requests_missing`, `errors`.

    ## Why is this bad?
    Retries and takeovers repeat requests: a customer charged twice, a ticket opened
    twice, a message sent twice. A key reused with other parameters that silently gets
    the first result approves something nobody asked for.

    ## Example
    The input-hash comparison removed from `reserve_operation` (`agentddl prove --dsn
    ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP104 [effect-once-per-key] skip_locked/idempotency
      conflicts_missed=7: different-input requests not refused as a conflict.
      fix: reserve each effect with INSERT ... ON CONFLICT on a unique (tenant,
        idempotency_key), compare the stored input hash, and do the effect only for a new or
        owned reservation
    ```

    ## Use instead
    One row per (tenant, key), taken atomically; the stored input hash decides
    between "the earlier result" and "a conflict":
    ```sql
    ALTER TABLE agent.operations ADD PRIMARY KEY (tenant_id, idempotency_key);
    INSERT INTO agent.operations AS o (tenant_id, idempotency_key, run_id, input_hash, fencing_token)
    VALUES (...)
    ON CONFLICT (tenant_id, idempotency_key) DO UPDATE SET fencing_token = o.fencing_token
    RETURNING o.status, o.result, o.input_hash = :input_hash AS same_input, (o.xmax = 0) AS inserted;
    ```

    ## References
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: a unique idempotency key keeps two
      workers from creating the same logical operation twice; compare the stored input
      hash before returning an earlier result.
    - Design source `seeds/003_6aacb13a2f5f2d92.txt`: a unique constraint protects
      `idempotency_key`; "check, then insert" is a race.
    - https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
    """

    code = "ADP104"
    name = "effect-once-per-key"
    scenario = "idempotency"
    remedy = (
        "reserve each effect with INSERT ... ON CONFLICT on a unique (tenant, idempotency_key), "
        "compare the stored input hash, and do the effect only for a new or owned reservation"
    )


class OutboxDeliversEveryMessage(ProveRule):
    """Every committed state change's message is delivered at least once, none is
    lost, and none exists for a change that did not commit.

    ## What it does
    Guarantees that every committed state change's message is delivered at least once,
    and that no message exists for a change that did not commit, through worker and
    relay crashes. In the `outbox` scenario workers finish runs and write each run's
    message in the same transaction; some die right after that `COMMIT`. Relays claim
    messages (`relay_claim`), hand them to the consumer and acknowledge
    (`mark_delivered`); some die after claiming, before delivering, and (from two
    relays on) after delivering, before acknowledging. The outbox rows (one per
    succeeded run, none for a run that did not succeed) are compared with what the
    consumer received. Duplicate deliveries are counted, not failed: the consumer
    dedupes by message id. Guarded counts: `crash_points_missed`, `lost_outbox`,
    `phantom_messages`, `stuck_runs`, `errors`.

    ## Why is this bad?
    A message published after the commit is lost when the process dies between the
    two; one published before it announces a change that may roll back. A relay claim
    that never lapses strands a crashed relay's batch forever; an acknowledgement
    written at claim time marks undelivered messages delivered.

    ## Example
    `relay_claim` changed to mark messages delivered when it claims them (`agentddl
    prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP105 [outbox-delivers-every-message] skip_locked/outbox
      lost_outbox=2: messages never delivered, or succeeded runs without their message.
      fix: write the message in the transaction of the state change it announces, let a
        lapsed relay claim come back, and acknowledge only while holding the claim
    ```

    ## Use instead
    ```sql
    BEGIN;
    UPDATE agent.attempts SET status = 'succeeded' ... ;   -- the state change
    INSERT INTO agent.outbox (tenant_id, run_id, topic, payload) VALUES (...);  -- its message
    COMMIT;
    -- the relay: a lapsed claim comes back; only the claim's holder acknowledges
    ... WHERE delivered_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
        FOR UPDATE SKIP LOCKED ...
    UPDATE agent.outbox SET delivered_at = now()
    WHERE message_id = :message_id AND claimed_by = :relay_id AND delivered_at IS NULL;
    ```

    ## References
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: write the outbox row in the same
      transaction; the relay sends pending rows and marks them delivered; consumers
      stay idempotent because the relay may publish twice.
    - Design source `seeds/003_6aacb13a2f5f2d92.txt`: runtime intent, DB transaction,
      durable facts and outbox, commit, then the external effect and its
      acknowledgement.
    - https://www.postgresql.org/docs/current/tutorial-transactions.html
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP105"
    name = "outbox-delivers-every-message"
    scenario = "outbox"
    remedy = (
        "write the message in the transaction of the state change it announces, let a lapsed relay "
        "claim come back, and acknowledge only while holding the claim"
    )


class PoisonMessageDeadLettered(ProveRule):
    """A message no consumer accepts is tried a bounded number of times, backing off,
    then dead-lettered where an operator sees it; it never blocks or burns the relay.

    ## What it does
    Guarantees that the outbox bounds delivery attempts: a poison message is tried at
    most its `max_attempts` times, waiting longer after each refusal, then
    dead-lettered and listed by `dead_letters` and `health_dead_letters`, while every
    healthy message is still delivered. In the `poison_message` scenario the outbox
    holds healthy messages and two poison ones: the consumer refuses one every time
    (the relay reports it with `fail_delivery`), the other kills the relay that takes
    it, every time (its claim lapses). Observed: the relays' journal (claims,
    refusals and the backoff each was given, deliveries, crashes) against the outbox
    rows. Guarded counts: `poison_not_dead_lettered`, `poison_tried_past_limit`,
    `backoff_ignored`, `healthy_lost`, `healthy_dead_lettered`,
    `dead_letters_unlisted`, `crash_points_missed`, `errors`, `worker_failures`.

    ## Why is this bad?
    A message retried forever costs a relay round (or a relay process) on every pass:
    at-least-once delivery turns into at-least-forever, the queue's lag alarm fires
    for the wrong reason, and a message that crashes relays takes the whole relay
    fleet down in turn. Without a dead-letter state nobody is told which message it
    is, and retries without backoff hammer a consumer that is already failing.

    ## Example
    The attempt bound removed from `relay_claim` and `fail_delivery` (`agentddl
    prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP109 [poison-message-dead-lettered] skip_locked/poison_message
      poison_not_dead_lettered=2: poison messages still pending (tried without end) or
      delivered; poison_tried_past_limit=2: claims of poison messages beyond their
      max_attempts.
      fix: count delivery attempts, back off after each failure, and dead-letter a message
        whose attempts are spent (its own state, listed and alerted on)
    ```

    ## Use instead
    ```sql
    -- the relay reports a failure: back off, or dead-letter once attempts are spent
    UPDATE agent.outbox AS m
    SET claimed_by = NULL, claimed_until = NULL, last_error = :error,
        dead_at = CASE WHEN m.delivery_attempts >= m.max_attempts THEN now() END,
        available_at = now() + :backoff_seconds * power(2, m.delivery_attempts - 1) * interval '1 second'
    WHERE ... AND m.claimed_by = :relay_id AND m.delivered_at IS NULL AND m.dead_at IS NULL;
    -- a claim that lapsed on the last attempt (the relay died on it) is dead-lettered too
    ```

    ## References
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: the outbox gives operations a
      delivery state they can query instead of relying on log lines.
    - https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
    """

    code = "ADP109"
    name = "poison-message-dead-lettered"
    scenario = "poison_message"
    remedy = (
        "count delivery attempts, back off after each failure, and dead-letter a message whose "
        "attempts are spent (its own state, listed and alerted on)"
    )


class TenantIsolation(ProveRule):
    """A session of one tenant can read and change nothing of another tenant's, and
    deleting a tenant follows the profile's `on_tenant_delete`.

    ## What it does
    Guarantees that a session of one tenant reads and changes nothing of another
    tenant's, and that deleting a tenant follows the profile's `on_tenant_delete`. In
    the `tenant_isolation` scenario a worker whose session belongs to tenant A aims
    every named query at tenant B's runs, checkpoints, events, operations and
    messages, with B's keys, fencing and lease tokens; under row-level security it
    also passes B's tenant id (the database, not the query, must refuse it) and the
    coordinator tries raw SQL as the app role. Two more under row-level security: a
    pooled connection, where tenant A's transaction (its tenant named by
    `set_tenant`) committed and the next transaction on the same connection, as a
    pooler would hand it to another client, names no tenant: it must see nothing; and
    the tables' owner (the owner role) in a session naming tenant A must see nothing
    of B's (FORCE ROW LEVEL SECURITY: an owner otherwise skips every policy). Then a
    third tenant is deleted: its rows must be gone (`cascade`) or the delete refused
    with every row kept (`restrict`), the other tenants' rows untouched. A
    single-tenant profile has nothing to isolate (the scenario holds, not
    applicable). Guarded counts: `probe_leaks`, `targets_without_history`,
    `deletion_untested`, `other_tenant_changed`, `raw_sql_leaks`,
    `pooled_session_leaks`, `owner_leaks`, `deletion_mismatches`, `errors`,
    `worker_failures`.

    ## Why is this bad?
    One missing tenant predicate shows one customer's runs, prompts and results to
    another, or lets one customer's worker complete another's run. A tenant set for
    the session outlives the transaction: behind a transaction-mode pooler
    (PgBouncer) the next client's transaction on that server connection runs as the
    previous client's tenant. A table owner skips row-level security unless it is
    FORCEd. A child row that can point at another tenant's parent survives that
    tenant's deletion, and a deletion that leaves rows behind keeps data a customer
    asked to erase.

    ## Example
    The tenant predicate removed from the reads and fenced writes of `queries.sql`
    (`agentddl prove --dsn ... --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP106 [tenant-isolation] skip_locked/tenant_isolation
      probe_leaks=21: named-query probes that read or changed another tenant's rows.
      fix: scope every query and every child foreign key by the tenant (row-level security
        where the profile enables it) and make tenant deletion follow on_tenant_delete
    ```

    ## Use instead
    Every tenant-owned child joins its parent through a tenant-scoped key, every query
    names the tenant, and (when enabled) row-level security enforces the
    transaction's, on the owner too:
    ```sql
    ALTER TABLE agent.outbox ADD CONSTRAINT outbox_run_fkey
        FOREIGN KEY (tenant_id, run_id) REFERENCES agent.runs (tenant_id, run_id) ON DELETE CASCADE;
    SELECT ... FROM agent.runs WHERE tenant_id = :tenant_id AND run_id = :run_id;
    ALTER TABLE agent.runs ENABLE ROW LEVEL SECURITY;
    ALTER TABLE agent.runs FORCE ROW LEVEL SECURITY;
    CREATE POLICY runs_tenant ON agent.runs
        USING (tenant_id = current_setting('agentddl.tenant', true)::uuid);
    SELECT set_config('agentddl.tenant', :tenant_id, true);   -- first in each transaction
    ```

    ## References
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: a composite foreign key keeps an
      operation from pointing at another tenant's task; delete a tenant in a test
      environment and check its rows follow the intended policy.
    - Design source `seeds/004_936814f8a0aebe48.txt`: tenant ownership as relational
      columns, for permission checks, foreign keys and indexes.
    - https://www.postgresql.org/docs/current/ddl-rowsecurity.html
    - https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET
    - https://www.pgbouncer.org/features.html
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    """

    code = "ADP106"
    name = "tenant-isolation"
    scenario = "tenant_isolation"
    remedy = (
        "scope every query and every child foreign key by the tenant (row-level security where the "
        "profile enables it) and make tenant deletion follow on_tenant_delete"
    )


class OneWinnerPerVersion(ProveRule):
    """Of concurrent transitions from one version exactly one wins, and the database
    itself refuses a forbidden transition.

    ## What it does
    Guarantees that of concurrent transitions of a run from one version exactly one
    wins, and that the database itself refuses a forbidden transition. In the
    `version_races` scenario every worker transitions every run from the same version
    at once (half to `waiting`, half to `cancelled`) with `transition_run`: exactly
    one may win, each loser gets no row and, re-reading, finds a newer version. Then
    forbidden transitions are tried, through `transition_run` and as raw SQL by the
    app role (cancelled -> running, waiting -> succeeded, a status change that does
    not bump the version): the database must refuse them, not only the query's list.
    Guarded counts: `stale_writes_accepted`, `runs_without_winner`,
    `unclear_conflicts`, `versions_not_bumped_once`, `forbidden_accepted`,
    `forbidden_unprepared`, `forbidden_untried`, `errors`, `worker_failures`.

    ## Why is this bad?
    A worker, the cancel API and an approval handler update one run concurrently. With
    last-write-wins a late "running" overwrites a recorded "cancelled": a run the user
    cancelled keeps spending. A transition rule kept only in application code does not
    protect a migration script, an admin's UPDATE or a newly generated tool.

    ## Example
    The version check removed from `transition_run` (`agentddl prove --dsn ...
    --workers 4 --runs 100`, on PostgreSQL 18):
    ```text
    error ADP107 [one-winner-per-version] skip_locked/version_races
      stale_writes_accepted=6: transitions from a version another transition had already
      moved on; versions_not_bumped_once=6: runs whose version is not exactly one past the
      raced one.
      fix: transition with UPDATE ... WHERE version = :expected_version, bump the version
        on every status change, and refuse forbidden transitions in a trigger
    ```

    ## Use instead
    ```sql
    UPDATE agent.runs SET status = :to_status, version = version + 1
    WHERE tenant_id = :tenant_id AND run_id = :run_id AND version = :expected_version
    RETURNING version;   -- no row: someone else moved it; re-read, decide, never blindly retry
    CREATE TRIGGER runs_transition_guard BEFORE UPDATE OF status ON agent.runs
    FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status)
    EXECUTE FUNCTION agent.check_run_transition();   -- allowed moves only, and a version bump
    ```

    ## References
    - Design source `seeds/004_936814f8a0aebe48.txt`: optimistic concurrency with a
      version; on a mismatch re-read and decide whether the move (cancelled -> running)
      is forbidden, enforced by a constraint or trigger.
    - Design source `seeds/003_6aacb13a2f5f2d92.txt`: `UPDATE ... SET version =
      version + 1 WHERE run_id = :run_id AND version = :expected_version`.
    - https://www.postgresql.org/docs/current/plpgsql-trigger.html
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP107"
    name = "one-winner-per-version"
    scenario = "version_races"
    remedy = (
        "transition with UPDATE ... WHERE version = :expected_version, bump the version on every "
        "status change, and refuse forbidden transitions in a trigger"
    )


class ApprovalDecidedOnce(ProveRule):
    """A pending approval is decided once, and its event is written with the decision.

    ## What it does
    Guarantees that of people (or handlers) deciding one pending approval at the same
    moment exactly one decision wins, that the stored decision is the winner's, and that
    the winner's event is written in the same statement. In the `approval_once`
    scenario runs wait on one approval each and every worker decides every approval at
    once (approved or rejected at random) with `decide_approval`; a worker journals each
    decision it was told it won. Runs with the profile's `model.approvals` on; without
    approvals the scenario holds with nothing to decide. Guarded counts:
    `double_decisions`, `undecided`, `wrong_decisions`, `events_not_once`, `errors`,
    `worker_failures`.

    ## Why is this bad?
    A human-in-the-loop wait is a record, not only a `waiting` status (seed 003): two
    reviewers clicking at once, or a retried webhook, must not approve and reject the
    same request, nor resume the run twice. An approval decided by a plain UPDATE by key
    lets the last writer win silently; a decision written without its event leaves the
    run's history unable to say who decided.

    ## Example
    `decide_approval` without its `status = 'pending'` check (`agentddl prove --dsn ...
    --workers 4`, on PostgreSQL 18):
    ```text
    error ADP114 [approval-decided-once] skip_locked/approval_once
      double_decisions=9: approvals decided more than once; events_not_once=9: decided
      approvals whose run has not exactly one approval event.
      fix: decide with UPDATE ... WHERE status = 'pending' and write the decision's event
        in the same statement (decide_approval)
    ```

    ## Use instead
    ```sql
    WITH decided AS (
        UPDATE agent.approvals AS ap SET status = :decision, decided_by = :decided_by,
            decided_at = now()
        WHERE ap.tenant_id = :tenant_id AND ap.run_id = :run_id
          AND ap.approval_id = :approval_id AND ap.status = 'pending'
        RETURNING ap.tenant_id, ap.run_id, ap.approval_id, ap.status
    )
    INSERT INTO agent.events (...) SELECT ... FROM decided ...;  -- both or neither
    ```

    ## References
    - Design source `seeds/003_6aacb13a2f5f2d92.txt`: Run, Node, Tool, Checkpoint,
      Approval and Outbox as recoverable records whose versions are protected under
      concurrent updates.
    - Design source `seeds/000_1b2e48b7374a4a06.txt`: write the state change and its
      event in one transaction; zero rows updated means another writer moved first.
    - https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING
    - https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
    """

    code = "ADP114"
    name = "approval-decided-once"
    scenario = "approval_once"
    remedy = (
        "decide with UPDATE ... WHERE status = 'pending' and write the decision's event in the "
        "same statement (decide_approval)"
    )


RULES: tuple[type[ProveRule], ...] = (
    OneClaimPerRun,
    CrashedRunTakenOver,
    StaleWriterRejected,
    ForgedLeaseRejected,
    EffectOncePerKey,
    OutboxDeliversEveryMessage,
    PoisonMessageDeadLettered,
    TenantIsolation,
    OneWinnerPerVersion,
    ApprovalDecidedOnce,
)


def all_rules() -> list[type[ProveRule]]:
    """Every prove rule, by code: the hot projection's (hot_rules) after these."""
    from agentddl.checks.prove.hot_rules import HOT_RULES  # it imports ProveRule from here

    return [*RULES, *HOT_RULES]


def finding_of(result: ScenarioResult) -> Finding | None:
    """The error finding of a broken scenario; None when it held."""
    by_scenario = {rule.scenario: rule for rule in all_rules()}
    return None if result.held else by_scenario[result.name].broken(result)
