"""ADA117 reads-large-share."""

from __future__ import annotations

from dataclasses import replace

from agentddl.checks.audit.fkactions import FiredAction, FkActionRule
from agentddl.checks.audit.judge import PlanFacts, PlanRule, TableRead
from agentddl.checks.core.findings import Finding


class ReadsLargeShare(PlanRule, FkActionRule):
    """An access path reads most of a large table, whatever the access method.

    ## What it does
    Adds up the rows every node of a path's plan reads of each table: scans in
    sub-plans, InitPlans and CTEs, the scan beneath an UPDATE or DELETE, the SELECT of
    an `INSERT ... SELECT` and of a writable CTE, every loop of a nested loop, every
    partition; and the foreign keys' actions a DELETE or key UPDATE fires: the rows it
    changes times the rows its lookup of the referencing table reads for one of them.
    Under EXPLAIN ANALYZE a scan's rows read are the rows it returned plus
    those its filter removed; planned only (`--no-analyze`, a generic plan), a
    sequential scan reads its relation and another scan its estimate, and a scan
    beneath a `LIMIT` is left out. Reports the path when what it reads of a large table
    (10,000 rows or more) is half of the table's rows or more (`--max-read-share`,
    default 0.5), by sequential scan or through an index alike.

    A sequential scan that keeps a small share of what it reads is ADA101's finding
    (an index is its fix), not this one. A bounded `LIMIT` passes on what it really
    read, and a small table is read whole without a finding. On the seeded default
    schema the largest share a path reads is the biggest tenant's runs (~18% of
    `runs`, Zipf-sized tenants): a lookup by key, served.

    ## Why is this bad?
    The plan may look served (`Index Scan using t_pkey`) while the path reads every
    row of the table, through the index: its time grows with the table, not with the
    answer, and at production volume it takes seconds and fills the buffer cache. No
    index makes reading most of a table cheap; the query has to read less.

    ## Example
    ```sql
    -- name: all_jobs
    SELECT * FROM jobs WHERE id > 0 ORDER BY id;
    ```
    is planned as
    ```
    Index Scan using jobs_pkey on jobs  (actual rows=300000 loops=1)
      Index Cond: (id > 0)
    ```

    ## Use instead
    Read a page at a time (keyset pagination with a `LIMIT`), or narrow the predicate
    to what the caller needs:
    ```sql
    SELECT * FROM jobs WHERE id > :after_id ORDER BY id LIMIT 500;
    ```
    A batch job that must read the whole table belongs outside the audited workload, or
    under a `--max-read-share` you chose for it.

    ## References
    - https://www.postgresql.org/docs/current/using-explain.html#USING-EXPLAIN-ANALYZE
    - https://www.postgresql.org/docs/current/queries-limit.html
    """

    code = "ADA117"
    name = "reads-large-share"
    severity = "error"
    order = 10

    def check(self, seen: PlanFacts) -> list[Finding]:
        share = seen.limits.read_share
        return [self._found(seen, read) for read in seen.table_reads() if read.share >= share]

    def judge_action(self, fired: FiredAction) -> Finding | None:
        """Rows changed x the lookup's rows read for one of them, against the child's size."""
        lookup, plan = fired.lookup, fired.firing.plan
        changed = plan.changed if plan is not None else {}
        parents = changed.get(fired.fk.parent, changed.get("", 0.0))
        if lookup.plan is None or not parents:
            return None
        seen = PlanFacts(fired.firing.path, lookup.plan, fired.catalog, fired.limits)
        for one in seen.table_reads():
            total = replace(one, rows=one.rows * parents)
            if one.table == fired.fk.table and total.share >= fired.limits.read_share:
                verb = "deletes" if fired.action.startswith("ON DELETE") else "re-keys"
                through = (
                    f" through {fired.fk.name} ({fired.action}): it {verb} ~{parents:,.0f} "
                    f"{fired.catalog.qualified(fired.fk.parent)} rows, each one's "
                    f"{one.rows:,.0f} referencing rows read, one lookup {_figures(one)}"
                )
                return self._found(seen, total, through)
        return None

    def _found(self, seen: PlanFacts, read: TableRead, through: str = "") -> Finding:
        return self.finding(
            f"{seen.path.name} reads {read.rows:,.0f} rows of {seen.catalog.qualified(read.table)}'s "
            f"{read.size:,.0f} ({read.share:.0%}, at least {seen.limits.read_share:.0%} fails)"
            + (through or f" {_figures(read)}")
            + ": its cost grows with the table whatever the index.",
            "read less: a LIMIT with keyset pagination (a batch of rows at a time), or a narrower predicate",
            object=seen.path.name,
        )


def _figures(read: TableRead) -> str:
    """How the rows were read, and what ANALYZE measured (or that they are estimates)."""
    how = ", ".join(dict.fromkeys(f"{s.node} using {s.index}" if s.index else s.node for s in read.scans))
    if read.measured:
        return f"(measured: {how}, {sum(s.ms or 0.0 for s in read.scans):,.1f} ms)"
    return f"(estimated: {how}; not run)"
