"""events.event_id between an owned sequence (PostgreSQL 14-16 profiles) and an identity
column (17+, where partitioned tables allow one), keeping the next id where it was."""

from __future__ import annotations

from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.types import Step
from agentddl.generator.model.names import quote
from agentddl.generator.model.privileges import grant_statements
from agentddl.generator.model.scope import Scope

SEQUENCE = "events_event_id_seq"
AE = "ACCESS EXCLUSIVE"


def identity_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    switch = [
        d for d in ctx.of("default", "sequence") if d.key[0] == "sequence" or "identity" in (d.old, d.new)
    ]
    if not switch:
        return outcome
    outcome.take(*switch)
    to_identity = any(d.key[0] == "default" and d.new == "identity" for d in switch)
    statements = _to_identity(ctx) if to_identity else _to_sequence(ctx)
    # a new sequence gets the grants every sequence of the schema has
    statements += tuple(
        g for g in grant_statements(Scope(ctx.new.profile), ctx.new.tables) if "SEQUENCES" in g
    )
    summary = (
        "events.event_id becomes an identity column (PostgreSQL 17+), continuing the sequence"
        if to_identity
        else "events.event_id takes its ids from an owned sequence again, continuing the identity"
    )
    outcome.steps.append(
        Step(
            "switch",
            summary,
            statements,
            "locked",
            AE,
            (ctx.rel("events"), f"{ctx.rel('events')} partitions"),
            "catalog",
            "the downgrade switches back the same way, keeping the next id",
        )
    )
    return outcome


def _to_identity(ctx: Context) -> tuple[str, ...]:
    rel, seq, nxt = ctx.rel("events"), f"{ctx.schema}.{SEQUENCE}", f"{ctx.schema}.{SEQUENCE}_next"
    return (
        f"ALTER TABLE {rel} ALTER COLUMN event_id DROP DEFAULT",
        f"ALTER TABLE {rel} ALTER COLUMN event_id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME {nxt})",
        f"SELECT setval('{nxt}', last_value, is_called) FROM {seq}",
        f"DROP SEQUENCE {seq}",
        f"ALTER SEQUENCE {nxt} RENAME TO {SEQUENCE}",
    )


def _to_sequence(ctx: Context) -> tuple[str, ...]:
    rel, seq, nxt = ctx.rel("events"), f"{ctx.schema}.{SEQUENCE}", f"{ctx.schema}.{SEQUENCE}_next"
    return (
        f"CREATE SEQUENCE {nxt} AS bigint",
        # an owned sequence has its table's owner (the migrating role is only a member)
        f"ALTER SEQUENCE {nxt} OWNER TO {quote(ctx.new.profile.role('owner'))}",
        f"SELECT setval('{nxt}', last_value, is_called) FROM {seq}",
        f"ALTER TABLE {rel} ALTER COLUMN event_id DROP IDENTITY",
        f"ALTER SEQUENCE {nxt} RENAME TO {SEQUENCE}",
        f"ALTER TABLE {rel} ALTER COLUMN event_id SET DEFAULT nextval('{seq}'::regclass)",
        f"ALTER SEQUENCE {seq} OWNED BY {rel}.event_id",
    )
