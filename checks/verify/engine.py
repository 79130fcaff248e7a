"""Run verify rules on one open connection: the context they read, and their findings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agentddl.checks.catalog_rules.types import Reference, Rule, VerifyContext, server_major
from agentddl.checks.core.findings import Finding, sorted_findings
from agentddl.checks.db.rows import Connection, fetch
from agentddl.checks.verify.rules import all_rules, rules_in_group
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

_SYSTEM_SCHEMAS = """
SELECT nspname FROM pg_namespace
WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND nspname NOT LIKE 'pg\\_temp\\_%%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%%'
  AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_namespace'::regclass
                  AND d.objid = pg_namespace.oid AND d.deptype = 'e')
  -- an extension's own schema (e.g. partman): its tables are the extension's business
  AND NOT (EXISTS (SELECT FROM pg_extension AS e WHERE e.extnamespace = pg_namespace.oid)
           AND NOT EXISTS (SELECT FROM pg_class AS c WHERE c.relnamespace = pg_namespace.oid
                           AND c.relkind IN ('r', 'p')
                           AND NOT EXISTS (SELECT FROM pg_depend AS d
                                           WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                             AND d.deptype = 'e')))
ORDER BY nspname
"""


def user_schemas(connection: Connection) -> tuple[str, ...]:
    """Every schema but the system's and those an extension owns."""
    return tuple(row["nspname"] for row in fetch(connection, _SYSTEM_SCHEMAS))


def make_context(
    connection: Connection,
    schemas: Sequence[str] | None = None,
    model: SchemaModel | None = None,
    reference: Reference | None = None,
) -> VerifyContext:
    """The context for `schemas` (default: the model's schema, else every user schema)."""
    chosen = tuple(schemas) if schemas else ((model.schema,) if model else user_schemas(connection))
    present = {row["nspname"] for row in fetch(connection, "SELECT nspname FROM pg_namespace")}
    missing = [s for s in chosen if s not in present]
    if missing:
        raise AgentDDLError(f"schema {', '.join(missing)} not found in the database")
    version = server_major(connection)
    target = min(version, model.profile.engine.version) if model else version
    return VerifyContext(chosen, version, target, model, reference)


def run_rules(
    connection: Connection, context: VerifyContext, rules: Iterable[type[Rule]] | None = None
) -> list[Finding]:
    """Findings of `rules` (default: every rule that applies), errors first."""
    findings: list[Finding] = []
    for rule_class in all_rules() if rules is None else rules:
        rule = rule_class()
        if rule.applies(context):
            findings.extend(rule.check(connection, context))
    return sorted_findings(findings)


def generic_findings(connection: Connection, schema: str | Sequence[str]) -> list[Finding]:
    """Every generic (catalog hygiene) rule on `schema` (or several)."""
    schemas = [schema] if isinstance(schema, str) else list(schema)
    return run_rules(connection, make_context(connection, schemas), rules_in_group("generic"))


def run_one(rule: type[Rule], connection: Connection, schema: str) -> list[Finding]:
    return run_rules(connection, make_context(connection, [schema]), [rule])
