"""Roles and grants, expand then contract: new roles are created (roles are cluster-wide:
only when missing) and inherit the old roles' members, so sessions keep working; their
privileges are granted before the old roles' are revoked. Old roles stay: another
database may use them."""

from __future__ import annotations

import re
from dataclasses import replace

from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.types import Step
from agentddl.generator.model.blocks import quote, roles
from agentddl.generator.model.scope import Scope

_GRANT = re.compile(r"^GRANT (?P<privileges>.+) ON (?P<target>.+) TO (?P<roles>.+)$", re.S)


def role_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    renamed = [d for d in ctx.of("role") if not (d.added or d.removed)]
    if not renamed:
        return outcome
    outcome.take(*renamed)
    statements = [roles(Scope(ctx.new.profile)).sql]
    statements += [_members(str(d.old), str(d.new)) for d in renamed]
    names = ", ".join(f"{d.old} -> {d.new}" for d in renamed)
    outcome.steps.append(
        Step(
            "prepare",
            f"roles {names}: create the new ones, grant them to the old ones' members",
            tuple(statements),
            "plain",
            None,
            (),
            "catalog",
            "nothing to undo: the downgrade grants the old roles again (both stay)",
            handover="expand",
        )
    )
    return outcome


def _members(old: str, new: str) -> str:
    """Every member of the old role becomes a member of the new one (login roles keep the
    privileges they had through the old group role)."""
    return (
        "DO $$\nDECLARE\n    member text;\nBEGIN\n"
        f"    IF to_regrole('{old}') IS NULL THEN\n        RETURN;\n    END IF;\n"
        "    FOR member IN\n"
        "        SELECT m.member::regrole::text FROM pg_catalog.pg_auth_members AS m\n"
        f"        WHERE m.roleid = '{old}'::regrole\n"
        "    LOOP\n"
        f"        EXECUTE format('GRANT %I TO %s', '{new}', member);\n"
        "    END LOOP;\nEND\n$$"
    )


def split_grant(statement: str) -> list[tuple[str, str, str]]:
    """`GRANT p ON t TO a, b` -> [(p, t, a), (p, t, b)]: one privilege set per role."""
    match = _GRANT.match(statement)
    assert match, statement  # our own statements (privileges.grant_statements)
    return [(match["privileges"], match["target"], role) for role in match["roles"].split(", ")]


def grant_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    differences = ctx.of("grant")
    if not differences:
        return outcome
    outcome.take(*differences)
    old = [g for d in differences if d.removed for g in split_grant(d.key[2])]
    new = [g for d in differences if d.added for g in split_grant(d.key[2])]
    granted = [g for g in new if g not in old]
    revoked = [g for g in old if g not in new]
    handover = bool(ctx.of("role"))  # renamed roles: the old ones keep theirs until clients moved
    if granted:
        outcome.steps.append(
            Step(
                "prepare",
                "grant the profile's privileges to " + ", ".join(sorted({g[2] for g in granted})),
                tuple(f"GRANT {p} ON {t} TO {r}" for p, t, r in granted),
                "plain",
                None,
                (),
                "catalog",
                "the downgrade revokes them",
                handover="expand" if handover else None,
            )
        )
    if revoked:
        outcome.steps.append(replace(_revoke(ctx, revoked), handover="contract" if handover else None))
    return outcome


def _revoke(ctx: Context, revoked: list[tuple[str, str, str]]) -> Step:
    statements = [f"REVOKE {p} ON {t} FROM {r}" for p, t, r in revoked]
    gone = sorted({r for _, _, r in revoked})
    old_owner, new_owner = quote(ctx.old.profile.role("owner")), quote(ctx.new.profile.role("owner"))
    if old_owner != new_owner and ctx.old.profile.retention.partition_manager == "builtin":
        statements.append(
            f"REVOKE EXECUTE ON FUNCTION {ctx.schema}.maintain_partitions(timestamptz) FROM {old_owner}"
        )
    return Step(
        "contract",
        "revoke the previous roles' privileges from " + ", ".join(gone),
        tuple(statements),
        "plain",
        None,
        (),
        "catalog",
        "the downgrade grants them again",
    )
