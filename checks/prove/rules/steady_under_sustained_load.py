"""ADP116 steady-under-sustained-load: the guarantee the soak (`prove --soak MINUTES`) proves."""

from __future__ import annotations

from agentddl.checks.prove.rules import ProveRule
from agentddl.checks.prove.soak import SCENARIO


class SteadyUnderSustainedLoad(ProveRule):
    """Under hours of steady load the queue keeps its pace and its size: autovacuum,
    with the generated per-table settings, keeps up with the live table.

    ## What it does
    Guarantees that the schema's throughput, its latency and its live table's size stay
    level under sustained load. `agentddl prove --soak MINUTES` runs the claim race's
    workload for that long: a feeder keeps the queue `--runs` deep, `--workers` processes
    drain it (claim, one step, complete: every named query of a run's path), and at the
    end of every minute prove reads from the server the runs completed, the p99 of a
    run's claim-to-complete time as its worker saw it, and each hot table's (`run_queue`,
    `runs`, `attempts`, `events`, `checkpoints`) dead tuples, size and autovacuum runs,
    with each of their indexes' size. The soak is broken when the last minute's
    throughput is below the second minute's divided by 1.2, or its p99 above 1.2 times
    the second's, or `run_queue` ends more than twice its size after the first minute
    (its indexes: after the second, once autovacuum has run and a B-tree has reached
    its steady size); and when a run started did not succeed or a query raised. The
    first minute warms up (caches, the queue's first autovacuum); the second is the
    baseline. Each row also carries the machine's load average: on a shared machine
    the neighbours show in the throughput. Only the soak runs when `--soak` is given;
    `make bench-soak` is ten minutes at eight workers on the default profile.

    ## Why is this bad?
    A queue table is rewritten all day: every claim, heartbeat, step and completion
    leaves a dead row version and, when an indexed column changes, a dead index entry.
    If autovacuum waits for a share of a table that stays small (the default 20%
    scale factor), or is throttled by its cost delay, dead versions pile up faster than
    they are removed: every claim scans past them, the table and its indexes grow
    without bound, and throughput falls by the hour while no single query looks wrong.
    A minute-long benchmark never sees it; the night shift does.

    ## Example
    A soak on a schema whose live table lost its storage parameters (the default
    autovacuum thresholds), `agentddl prove -p schemas/default.yaml --soak 10`:
    ```text
    error ADP116 [steady-under-sustained-load] skip_locked/soak
      live_table_grew=1: run_queue after the soak larger than 2 x after the first minute;
      throughput_degraded=1: the last minute's runs/s below the second's / 1.2.
      fix: keep run_queue's generated storage parameters (fillfactor 50, autovacuum by a
        fixed number of dead rows, no cost delay) ...
    ```

    ## Use instead
    The generated live table vacuums by a fixed number of dead rows, unthrottled, and
    leaves room on each page for HOT updates of its counters:
    ```sql
    ALTER TABLE agent.run_queue SET (
        fillfactor = 50,
        autovacuum_vacuum_scale_factor = 0,
        autovacuum_vacuum_threshold = 500,
        autovacuum_vacuum_cost_delay = 0
    );
    ```
    Keep transactions short (an open transaction holds back every vacuum's horizon),
    watch `pg_stat_user_tables.n_dead_tup` and `last_autovacuum` of `run_queue`, and
    delete a run's live row when it ends, as the generated queries do.

    ## References
    - https://www.postgresql.org/docs/current/routine-vacuuming.html
    - https://www.postgresql.org/docs/current/runtime-config-autovacuum.html
    - https://www.postgresql.org/docs/current/storage-hot.html
    - https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-ALL-TABLES-VIEW
    """

    code = "ADP116"
    name = "steady-under-sustained-load"
    scenario = SCENARIO
    remedy = (
        "keep run_queue's generated storage parameters (fillfactor 50, autovacuum by a fixed number of "
        "dead rows, no cost delay), short transactions (nothing holds back vacuum's horizon), and "
        "delete each run's live row when it ends"
    )
