"""The linter's core types: what a rule reads and what it reports.

A rule never parses SQL and never touches a database. The framework parses a
migration once, walks it in order and hands each rule one `Statement` plus the
frozen `Context` that was in force *before* that statement ran.

For rule authors (the PostgreSQL-semantics layer, `agentddl.checks.pg`, which trace
shares):
- `pg.ast_helpers`: relation_name(range_var, ctx), is_new_relation(range_var, ctx),
  resolve(schema, name, ctx), qualified_name(names, ctx), name_list, const_value,
  iter_nodes, function_name, expression_volatility(expr), option_enabled(options, name).
- `pg.columns`: ALTER TABLE commands, added columns/constraints, column types and rewrites;
  `pg.batching`: is an UPDATE/DELETE bounded; `pg.earlier`: what this migration made before.
- `Rule.node_types`: the statement node types a rule reports on (the engine calls it for
  those only); `Violation.severity`: a milder (or harsher) severity for one case.
- `pg.locks`: locks_taken(statement, ctx) -> [(RelationName, LockMode)], lock strengths.
- `pg.walk.walk(text, file, pg_version, runner)` / `engine.lint(text, file, config, only=)`.
- DO blocks, transactions and the no-scan rule for `context.earlier`: see
  `agentddl.checks.pg.statements`; `Violation.location` is ignored inside DO blocks.
- `Context.options[rule-name]` is the rule's `[tool.agentddl.options.<rule-name>]`
  table; `Context.options["lock_timeout"]` is `[tool.agentddl] lock_timeout = {...}`.
- `Context.schema` (`lint --schema-from`): the tables, columns and constraints before
  the migration, with production's sizes (`--sizes-from`, lint/sizes.py), or None;
  `pg.known_columns.known_column(statement, context, table, column)` merges it with the
  migration's earlier changes and Alembic's hints.
  `Rule.scales_with_table_size`: the engine makes the finding milder on small tables.
- `Violation.data_check` (`lint.probe.data_check`): a statement that fails on some
  rows says how to find one; with `--schema-from DSN` the engine asks the database.
- Fixtures: tests/fixtures/lint/<rule-name>/*.sql, see tests/unit/lint/test_fixtures.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from agentddl.checks.core.findings import Finding, Severity
from agentddl.checks.core.rules import Rule as BaseRule
from agentddl.checks.lint.probe import DataCheck
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context, Runner, Statement

__all__ = ["Context", "Finding", "RelationName", "Rule", "Runner", "Severity", "Statement", "Violation"]


@dataclass(frozen=True)
class Violation:
    """What a rule's check yields; the engine makes it a `Finding` with `Rule.finding`,
    adding file, line, column and (unless the rule chose one for this case) severity."""

    message: str  # the consequence, one sentence: "Building this index blocks writes to t."
    fix: str  # the action, one sentence: "Use CREATE INDEX CONCURRENTLY outside a transaction."
    location: int | None = None  # character offset inside the statement's sql, if narrower
    severity: Severity | None = None  # None: the rule's; a configured severity wins over both
    by_size: bool = True  # False: not milder on a small table (e.g. it may fail at any size)
    # A statement that fails on some rows: the query that finds one (lint/probe.py); with
    # a database to ask, the engine makes the finding an error, or drops it, by the answer.
    data_check: DataCheck | None = None


class Rule(BaseRule):
    """Base of every lint rule: one subclass per module in `agentddl.checks.lint.rules`.

    The class docstring is the rule's documentation and must have the sections
    What it does / Why is this bad? / Example / Use instead / In an Alembic migration /
    References; the docs site's rule pages are generated from it.
    """

    family = "lint"
    # `name` is also what ignore comments and [tool.agentddl.rules] use
    enabled_by_default: ClassVar[bool] = True
    # The statement node types `check` can report on; the engine calls it for those only
    # (one dict lookup instead of a call per rule and statement). Empty: every statement.
    node_types: ClassVar[tuple[type, ...]] = ()
    # The hazard grows with the table (a scan, an index build, a rewrite): with a schema
    # that knows table sizes, a small table's finding is milder (see lint/sizes.py).
    scales_with_table_size: ClassVar[bool] = False
    # Its [tool.agentddl.options.<name>] table is a timeout policy ({ required = bool,
    # max_ms = N }), checked when the config is read like lock_timeout's.
    timeout_policy: ClassVar[bool] = False

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        raise NotImplementedError
