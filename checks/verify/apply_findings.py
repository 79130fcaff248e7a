"""What `apply` reports: the catalog differences of its two installs, as findings.

What the model declares but the schema.sql install lacks (or holds otherwise) is a
declared-* finding (ADV121 index, ADV122 constraint, ADV123 table or column), as
`verify --profile` reports it on a live schema; what the Alembic install holds otherwise
than the schema.sql install is migration-differs-from-schema (ADV130).
"""

from __future__ import annotations

from agentddl.checks.catalog_rules.types import Rule
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.catalog import Change, Difference
from agentddl.checks.verify.declared import described, show_value
from agentddl.checks.verify.profile.declared_column import DeclaredColumn
from agentddl.checks.verify.profile.declared_constraint import DeclaredConstraint
from agentddl.checks.verify.profile.declared_index import DeclaredIndex
from agentddl.checks.verify.profile.migration_differs_from_schema import MigrationDiffersFromSchema

SCHEMA_SQL, ALEMBIC = "schema.sql", "alembic upgrade head"
NOUNS = {
    "tables": "table",
    "partitions": "partition",
    "columns": "column",
    "column_storage": "storage of column",
    "constraints": "constraint",
    "indexes": "index",
    "sequences": "sequence",
    "views": "view",
    "triggers": "trigger",
    "functions": "function",
    "policies": "policy",
    "comments": "comment on",
    "privileges": "privileges of",
}
_DECLARED: dict[str, type[Rule]] = {
    "tables": DeclaredColumn,
    "columns": DeclaredColumn,
    "constraints": DeclaredConstraint,
    "indexes": DeclaredIndex,
}
_GENERATOR_BUG = "report it with the profile: agentddl renders both from one model, so this is its bug"


def undeclared_findings(schema: str, problems: list[Difference]) -> list[Finding]:
    """Declared objects the schema.sql install lacks or holds otherwise than the model says."""
    findings = []
    for problem in problems:
        name = f"{schema}.{problem.name}"
        if problem.what == "missing":
            state = f"is missing after {SCHEMA_SQL} ran"
        elif problem.what == "validity":
            state = f"is {'invalid' if problem.kind == 'indexes' else 'not validated'} after {SCHEMA_SQL} ran"
        else:
            declared = "; ".join(described(change) for change in problem.changes)
            state = f"is not what the profile declares after {SCHEMA_SQL} ran: {declared}"
        rule = _DECLARED[problem.kind]
        message = f"{NOUNS[problem.kind]} {name} {state}."
        findings.append(rule.finding(message, _GENERATOR_BUG, object=name))
    return findings


def migration_findings(schema: str, differences: list[Difference]) -> list[Finding]:
    """Objects the Alembic install holds otherwise than the schema.sql install."""
    findings = []
    for difference in differences:
        where = _object(schema, difference)
        subject = f"{NOUNS[difference.kind]} {where}"
        if difference.what == "missing":
            message = f"{subject} exists after {SCHEMA_SQL} but not after {ALEMBIC}."
        elif difference.what == "unexpected":
            message = f"{subject} exists after {ALEMBIC} but not after {SCHEMA_SQL}."
        else:
            compared = "; ".join(_compared(change) for change in difference.changes)
            message = f"{subject} differs: {compared}."
        findings.append(MigrationDiffersFromSchema.finding(message, _GENERATOR_BUG, object=where))
    return findings


def _object(schema: str, difference: Difference) -> str:
    """The difference's object, schema-qualified (privileges: the role and its object)."""
    if difference.kind != "privileges":
        return f"{schema}.{difference.name.removeprefix('FUNCTION ')}"
    role, _, target = difference.name.partition(" on ")
    if target == "SCHEMA":
        return f"{role} on {schema}"
    kind, _, name = target.partition(" ")
    return f"{role} on {schema}.{name if kind in ('FUNCTION', 'SEQUENCE') else target}"


def _compared(change: Change) -> str:
    expected, actual = show_value(change.expected), show_value(change.actual)
    return f"{change.field.replace('_', ' ')} {expected} after {SCHEMA_SQL}, {actual} after {ALEMBIC}"
