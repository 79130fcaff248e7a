"""Changes to existing tables that touch only the catalog: column defaults, compression,
comments, storage parameters, row-level security and its policies. Changes that would
rewrite a table or its keys (a column's type, a new key column) are refused."""

from __future__ import annotations

from itertools import groupby

from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.types import Difference, Refusal, Step
from agentddl.generator.model.privileges import Policy, policies
from agentddl.generator.model.scope import Scope

AE = "ACCESS EXCLUSIVE"
SUE = "SHARE UPDATE EXCLUSIVE"
_LZ4 = (
    "'lz4' = ANY (SELECT unnest(enumvals) FROM pg_catalog.pg_settings "
    "WHERE name = 'default_toast_compression')"
)


def table_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    for builder in (_defaults, _compression, _storage, _comments, _row_level_security):
        outcome.merge(builder(ctx))
    outcome.merge(_refused(ctx))
    return outcome


def _by_table(differences: list[Difference]) -> list[tuple[str, list[Difference]]]:
    ordered = sorted(differences, key=lambda d: d.key)
    return [(table, list(group)) for table, group in groupby(ordered, key=lambda d: d.key[1])]


def _defaults(ctx: Context) -> Outcome:
    outcome = Outcome()
    # identity <-> sequence is its own step (identity.py)
    plain = [d for d in ctx.of("default") if "identity" not in (d.old, d.new) and not (d.added or d.removed)]
    for table, group in _by_table(plain):
        outcome.take(*group)
        rel = ctx.rel(table)
        statements = tuple(
            f"ALTER TABLE {rel} ALTER COLUMN {d.key[2]} "
            + (f"SET DEFAULT {d.new}" if d.new is not None else "DROP DEFAULT")
            for d in group
        )
        columns = ", ".join(d.key[2] for d in group)
        outcome.steps.append(
            Step(
                "switch",
                f"new default for {table}.{columns} (rows written from now on; no rewrite)",
                statements,
                "locked",
                AE,
                (rel,),
                "catalog",
                "the downgrade sets the previous default",
            )
        )
    return outcome


def _compression(ctx: Context) -> Outcome:
    outcome = Outcome()
    changed = [d for d in ctx.of("compression") if not (d.added or d.removed)]
    for table, group in _by_table(changed):
        outcome.take(*group)
        rel = ctx.rel(table)
        method = group[0].new
        actions = ", ".join(
            f"ALTER COLUMN {d.key[2]} SET COMPRESSION {'DEFAULT' if d.new is None else d.new}" for d in group
        )
        statements: tuple[str, ...] = (f"ALTER TABLE {rel} {actions}",)
        if method == "lz4":
            # as at install: a server built without lz4 keeps the default (pglz)
            fallback = ", ".join(f"ALTER COLUMN {d.key[2]} SET COMPRESSION DEFAULT" for d in group)
            statements = (
                f"IF {_LZ4} THEN\n    ALTER TABLE {rel} {actions};\n"
                f"ELSE\n    ALTER TABLE {rel} {fallback};\nEND IF",
            )
        outcome.steps.append(
            Step(
                "switch",
                f"compress {table} payloads with {method or 'the server default'} (values written "
                "from now on; existing values and partitions keep theirs)",
                statements,
                "locked",
                AE,
                (rel,),
                "catalog",
                "the downgrade sets the previous method",
            )
        )
    return outcome


def _storage(ctx: Context) -> Outcome:
    outcome = Outcome()
    for difference in ctx.of("storage"):
        if difference.added or difference.removed:
            continue
        outcome.take(difference)
        table = difference.key[1]
        new, old = dict(difference.new), dict(difference.old)
        statements = []
        if new:
            statements.append(
                f"ALTER TABLE {ctx.rel(table)} SET ({', '.join(f'{k} = {v}' for k, v in new.items())})"
            )
        gone = [k for k in old if k not in new]
        if gone:
            statements.append(f"ALTER TABLE {ctx.rel(table)} RESET ({', '.join(gone)})")
        outcome.steps.append(
            Step(
                "switch",
                f"storage parameters of {table} (fillfactor applies to pages written from now on)",
                tuple(statements),
                "plain",
                SUE,
                (ctx.rel(table),),
                "catalog",
                "the downgrade sets the previous parameters",
            )
        )
    return outcome


def _comments(ctx: Context) -> Outcome:
    outcome = Outcome()
    changed = [d for d in ctx.of("table_comment", "column_comment") if not (d.added or d.removed)]
    for table, group in _by_table(changed):
        outcome.take(*group)
        statements = tuple(_comment(ctx, d) for d in group)
        outcome.steps.append(
            Step(
                "switch",
                f"comments on {table}",
                statements,
                "plain",
                SUE,
                (ctx.rel(table),),
                "catalog",
                "the downgrade sets the previous comments",
            )
        )
    return outcome


def _comment(ctx: Context, difference: Difference) -> str:
    text = "'" + str(difference.new).replace("'", "''") + "'" if difference.new else "NULL"
    if difference.key[0] == "table_comment":
        return f"COMMENT ON TABLE {ctx.rel(difference.key[1])} IS {text}"
    return f"COMMENT ON COLUMN {ctx.rel(difference.key[1])}.{difference.key[2]} IS {text}"


def _row_level_security(ctx: Context) -> Outcome:
    outcome = Outcome()
    touched = sorted({d.key[1] for d in ctx.of("rls", "policy")})
    for table in touched:
        group = [d for d in ctx.of("rls", "policy") if d.key[1] == table]
        outcome.take(*group)
        if ctx.of("role") and all(_roles_only(d) for d in group):
            outcome.steps += _policy_handover(ctx, table, group)
            continue
        rel = ctx.rel(table)
        statements = _policy_statements(ctx, table, group)
        outcome.steps.append(
            Step(
                "switch",
                f"row-level security on {table}: " + _rls_summary(group),
                statements,
                "locked",
                AE,
                (rel,),
                "catalog",
                "the downgrade restores the previous policies (and switches RLS back)",
            )
        )
    return outcome


def _roles_only(difference: Difference) -> bool:
    return (
        difference.key[0] == "policy"
        and not (difference.added or difference.removed)
        and difference.old[1:] == difference.new[1:]
    )


def _policy_handover(ctx: Context, table: str, group: list[Difference]) -> list[Step]:
    """Renamed roles: each policy names the old and the new roles until clients moved,
    then only the new ones (two revisions)."""
    rel = ctx.rel(table)
    both = tuple(f"ALTER POLICY {d.key[2]} ON {rel} TO {d.old[0]}, {d.new[0]}" for d in group)
    new = tuple(f"ALTER POLICY {d.key[2]} ON {rel} TO {d.new[0]}" for d in group)
    return [
        Step("switch", f"policies on {table} also name the new roles", both, "locked", AE, (rel,), "catalog",
             "the downgrade names only the previous roles again", handover="expand"),
        Step("contract", f"policies on {table} name only the new roles", new, "locked", AE, (rel,), "catalog",
             "the downgrade names the previous roles too again", handover="contract"),
    ]  # fmt: skip


def _rls_summary(group: list[Difference]) -> str:
    switch = next((d for d in group if d.key[0] == "rls"), None)
    if switch is not None:
        return "on, with its policies" if switch.new else "off, its policies dropped"
    return "policies follow the profile's roles"


def _policy_statements(ctx: Context, table: str, group: list[Difference]) -> tuple[str, ...]:
    """Policies first, then RLS on (no moment with RLS and no policy); off in reverse."""
    rel = ctx.rel(table)
    wanted = {p.name: p for p in policies(Scope(ctx.new.profile), ctx.new.table(table))}
    statements: list[str] = []
    for d in (d for d in group if d.key[0] == "policy"):
        name = d.key[2]
        if d.removed:
            statements.append(f"DROP POLICY IF EXISTS {name} ON {rel}")
        elif not d.added and d.old[1:] == d.new[1:]:
            statements.append(f"ALTER POLICY {name} ON {rel} TO {wanted[name].roles}")
        else:
            statements += [f"DROP POLICY IF EXISTS {name} ON {rel}", _create(ctx, wanted[name])]
    switch = next((d for d in group if d.key[0] == "rls"), None)
    if switch is not None and switch.new:
        statements.append(f"ALTER TABLE {rel} ENABLE ROW LEVEL SECURITY")
    elif switch is not None:
        statements.insert(0, f"ALTER TABLE {rel} DISABLE ROW LEVEL SECURITY")
    return tuple(statements)


def _create(ctx: Context, policy: Policy) -> str:
    return policy.create(ctx.new.schema)


def _refused(ctx: Context) -> Outcome:
    """Column types and keys, tables appearing or going: each would rewrite or lock a table."""
    outcome = Outcome()
    kinds = ("table", "column", "pk", "unique", "default", "compression", "table_comment", "column_comment")
    for difference in ctx.of(*kinds):
        if difference.key[0] in ("default", "compression", "table_comment", "column_comment") and not (
            difference.added or difference.removed
        ):
            continue  # handled above (or by identity.py)
        outcome.take(difference)
        outcome.refusals.append(_refusal(difference))
    return outcome


def _refusal(difference: Difference) -> Refusal:
    kind, table, name = difference.key
    what = f"{kind} {table}.{name}".rstrip(".")
    verb = "added" if difference.added else "removed" if difference.removed else "changed"
    return Refusal(
        what,
        f"{what} is {verb}",
        "no online recipe: it would rewrite the table or rebuild its keys under an ACCESS EXCLUSIVE lock",
        (
            "expand: add the new column or key beside the old one (nullable, no default that rewrites), "
            "with a trigger that keeps it in step on write",
            "backfill: copy the old values into it in batches (keyed ranges, a few thousand rows per "
            "transaction)",
            "switch: build its indexes CONCURRENTLY, add its constraints NOT VALID and VALIDATE them, "
            "deploy code that uses it",
            "contract: drop the old column or key and the trigger, then record the profile with "
            "`agentddl generate PROFILE --out DIR --dsn DB`",
        ),
    )
