"""The lock each step's SQL takes by PostgreSQL's lock table, read with the same parser
and lock model lint uses: a second opinion on the lock the generator declares."""

from __future__ import annotations

from agentddl.checks.pg.lockmodes import LockMode
from agentddl.checks.pg.locks import all_locks
from agentddl.checks.pg.walk import walk
from agentddl.generator.delta.types import Step


def declared_mode(step: Step) -> LockMode | None:
    return LockMode[step.lock.replace(" ", "_")] if step.lock else None


def parsed_mode(step: Step, pg_version: int) -> LockMode | None:
    """The strongest lock the step's SQL statements take (PL/pgSQL control lines and the
    per-partition loop, which has no static SQL, are skipped)."""
    sql = ";\n".join(s for s in step.statements if not s.startswith(("IF ", "PERFORM "))) + ";"
    migration = walk(sql, "<step>", pg_version, "psql")
    if migration.syntax_error is not None:
        return None
    modes = [mode for statement, context in migration.steps for _, mode in all_locks(statement, context)]
    return max(modes, default=None)
