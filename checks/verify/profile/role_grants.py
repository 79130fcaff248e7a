"""ADV126 role-grants."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentddl.checks.catalog_rules.types import Connection, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.declared import live_snapshot, reference_of


class RoleGrants(Rule):
    """A role of the profile may do more, or less, than the profile grants it.

    ## What it does
    For each of the profile's roles (owner, app, relay, read-only) and the schema
    itself, each table (and its columns), sequence and function of the schema,
    compares the role's effective privileges (`has_table_privilege`,
    `has_column_privilege`, `has_sequence_privilege`, `has_schema_privilege`,
    `has_function_privilege`: direct grants, grants to PUBLIC and to roles it
    inherits from) with those the same role has on the
    reference installation of the profile's schema.sql. The app role's grants on
    events (INSERT and SELECT only) are one such line.

    ## Why is this bad?
    An extra privilege breaks a guarantee: an app role that may UPDATE or DELETE
    events can rewrite history the schema promises is append-only; one that may
    execute the partition maintenance can drop a tenant's history. A missing one
    fails the runtime's first query in production.

    ## Example
    ```sql
    GRANT UPDATE, DELETE ON agent.events TO agent_app;
    ```

    ## Use instead
    ```sql
    REVOKE UPDATE, DELETE ON agent.events FROM agent_app;
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-priv.html
    """

    code = "ADV126"
    name = "role-grants"
    severity = "error"
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        declared = reference_of(context).snapshot.privileges
        live = live_snapshot(connection, context).privileges
        schema = context.schemas[0]
        live_roles = {role for role, _ in live}
        append_only = {t.name for t in context.model.tables if t.append_only} if context.model else set()
        for role in sorted({role for role, _ in declared} - live_roles):
            yield self.finding(
                f"role {role} does not exist: the profile grants it privileges.",
                "run the role block of schema.sql (CREATE ROLE ... NOLOGIN) and the grants",
                object=role,
            )
        for (role, obj), wanted in sorted(declared.items()):
            if role not in live_roles or (role, obj) not in live:
                continue
            found = live[(role, obj)]
            yield from self._differences(role, _target(schema, obj), found, wanted, obj in append_only)

    def _differences(
        self, role: str, target: _Target, found: frozenset[str], wanted: frozenset[str], append_only: bool
    ) -> Iterator[Finding]:
        if found - wanted:
            extra = ", ".join(sorted(found - wanted))
            rewrites = append_only and any(p.split(" ")[0] in _REWRITING for p in found - wanted)
            consequence = ": it can rewrite history the profile keeps append-only" if rewrites else ""
            yield self.finding(
                f"{role} may {extra} {target.shown}{consequence}; the profile grants it {_list(wanted)}.",
                f"REVOKE {extra} ON {target.sql} FROM {role} (and from PUBLIC or roles it inherits from)",
                object=target.name,
            )
        if wanted - found:
            missing = ", ".join(sorted(wanted - found))
            yield self.finding(
                f"{role} lacks {missing} on {target.shown}: the runtime's queries as {role} fail.",
                f"GRANT {missing} ON {target.sql} TO {role}",
                object=target.name,
            )


_REWRITING = frozenset({"UPDATE", "DELETE", "TRUNCATE"})


@dataclass(frozen=True)
class _Target:
    """A privilege's object as findings name it: the finding's object, in a message, in SQL."""

    name: str
    shown: str
    sql: str


def _target(schema: str, key: str) -> _Target:
    """The target of a key of `Snapshot.privileges`: a table, `FUNCTION f(...)`,
    `SEQUENCE s` or `SCHEMA`."""
    kind, _, rest = key.partition(" ")
    if key == "SCHEMA":
        return _Target(schema, f"schema {schema}", f"SCHEMA {schema}")
    if kind == "FUNCTION":
        return _Target(f"{schema}.{rest}", f"{schema}.{rest}", f"FUNCTION {schema}.{rest}")
    if kind == "SEQUENCE":
        return _Target(f"{schema}.{rest}", f"sequence {schema}.{rest}", f"SEQUENCE {schema}.{rest}")
    return _Target(f"{schema}.{key}", f"{schema}.{key}", f"{schema}.{key}")


def _list(privileges: frozenset[str]) -> str:
    return ", ".join(sorted(privileges)) if privileges else "nothing"
