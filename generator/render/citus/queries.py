"""Named queries that Citus needs in another form (generator/render/citus/).

- maintain_partitions calls Citus's time-partition functions (citus.sql).
- expire_leases, fail_attempt, transition_run and fail_delivery set timestamps inside
  CASE (`CASE WHEN ... THEN now() END`) and add a backoff that depends on the row to
  now() (a failed run's live row becomes visible after it). Citus refuses both in an
  UPDATE of a distributed table ("non-IMMUTABLE functions are not allowed in CASE or
  COALESCE statements"; "STABLE functions used in UPDATE queries cannot be called with
  column references"; ADS105). Their Citus form reads the
  clock once in the FROM clause, `(SELECT now() AS at) AS clock`, uses clock.at in the
  CASE, and adds the backoff in UTC timestamp arithmetic (IMMUTABLE):
  `((clock.at AT TIME ZONE 'UTC') + backoff) AT TIME ZONE 'UTC'`. The same instants as
  now() + backoff; prove runs these forms on plain PostgreSQL.

Each Citus form is the single-server query with exact substitutions: if the single-server
body changes so that one no longer applies, generation fails here (loudly, in the tests)
instead of shipping a body Citus refuses.
"""

from __future__ import annotations

from dataclasses import replace

from agentddl.generator.render.citus.sql import MAINTAIN
from agentddl.generator.render.queries.base import Ctx, Query

CLOCK = "(SELECT now() AS at) AS clock"
AT = "clock.at"


def _utc(expression: str) -> str:
    return f"(({AT} AT TIME ZONE 'UTC') + {expression}) AT TIME ZONE 'UTC'"


# query name -> exact (single-server text, Citus text) substitutions, applied in order
TRANSITION = (
    ("THEN now() ELSE r.wake_at END", f"THEN {AT} ELSE r.wake_at END"),
    ("THEN now() END", f"THEN {AT} END"),
    ("AS lock_first\n", f"AS lock_first, {CLOCK}\n"),
    ("THEN now() ELSE 'infinity'", f"THEN {AT} ELSE 'infinity'"),  # the live row follows
    ("    FROM moved AS m\n    WHERE q.", f"    FROM moved AS m, {CLOCK}\n    WHERE q."),
)
# the run's UPDATE in an ending (FROM the live row's CTE)
RUN_CLOCK = ("    FROM live AS l\n    WHERE r.", f"    FROM live AS l, {CLOCK}\n    WHERE r.")
SUBSTITUTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "expire_leases": (("THEN now() END,", f"THEN {AT} END,"), RUN_CLOCK),
    "fail_attempt": (
        ("visible_at = now() + ", f"visible_at = {AT} + "),
        ("\n    WHERE q.", f"\n    FROM {CLOCK}\n    WHERE q."),  # the retry's live row
        ("THEN now() END", f"THEN {AT} END"),
        RUN_CLOCK,
    ),
    "transition_run": TRANSITION,
    "transition_run_with_event": TRANSITION,  # the same transition (runs.transition_ctes)
    "fail_delivery": (
        ("THEN now() END,", f"THEN {AT} END,"),
        ("ELSE now() + ", f"ELSE {AT} + "),
        ("\nWHERE ", f"\nFROM {CLOCK}\nWHERE "),
    ),
}
BACKOFF_ADDED = {"fail_attempt", "fail_delivery"}  # clock.at + <interval over columns>: in UTC


def citus_queries(c: Ctx, built: dict[str, Query]) -> tuple[Query, ...]:
    return (maintain_partitions(c), *(_citus_form(built[name]) for name in SUBSTITUTIONS if name in built))


def _citus_form(query: Query) -> Query:
    sql = query.sql
    for old, new in SUBSTITUTIONS[query.name]:
        if old not in sql:
            raise RuntimeError(f"{query.name}: its Citus form no longer applies ({old!r} not found)")
        sql = sql.replace(old, new, 1)  # the first: the UPDATE (a later SELECT may repeat it)
    if query.name in BACKOFF_ADDED:
        sql = _backoff_in_utc(sql)
    note = "Citus form: the clock is read once in FROM (clock.at), not in CASE."
    return replace(query, sql=sql, doc=(*query.doc[:-1], note, query.doc[-1]))


def _backoff_in_utc(sql: str) -> str:
    """`clock.at + <backoff>` (ending at ELSE, END or the SET list's next comma) -> the
    same sum in UTC timestamp arithmetic."""
    start = sql.index(f"{AT} + ") + len(f"{AT} + ")
    ends = (sql.find(" ELSE", start), sql.find(" END", start), sql.find(",\n", start))
    end = min(i for i in ends if i != -1)
    return sql[: start - len(f"{AT} + ")] + _utc(sql[start:end]) + sql[end:]


def maintain_partitions(c: Ctx) -> Query:
    doc = (
        "Create the partitions ahead of now and drop those past retention with Citus's",
        "create_time_partitions and drop_old_time_partitions (citus.sql): each new partition",
        "is distributed with its parent. Run it on the coordinator, on a schedule, as a",
        "member of the owner role. Catalog work on every node: not a tenant's query.",
        "index: none (catalog work)",
        "returns: nothing",
    )
    return Query("maintain_partitions", "!", doc, f"CALL {c.t(MAINTAIN)}()", params=())
