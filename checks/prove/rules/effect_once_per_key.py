"""ADP104 effect-once-per-key: the guarantee the `idempotency` scenario proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.scenarios.idempotency import SCENARIO


class EffectOncePerKey(ProveRule):
    """A side effect asked for under one idempotency key happens exactly once; the same
    input gets the first result, a different input a conflict.

    ## What it does
    Guarantees that a side effect asked for under one idempotency key happens exactly
    once, however many workers ask at the same moment. In the `idempotency` scenario
    every worker holds a run and asks for the same effects under the same keys, all at
    once (`reserve_operation`, the effect, `complete_operation`); for each key one
    worker asks with a different input. The journal is the outside world: each effect
    performed (the API call the key guards) and what every request got back.

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
    - https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
    """

    code = "ADP104"
    name = "effect-once-per-key"
    scenario = SCENARIO
    remedy = (
        "reserve each effect with INSERT ... ON CONFLICT on a unique (tenant, idempotency_key), "
        "compare the stored input hash, and do the effect only for a new or owned reservation"
    )
