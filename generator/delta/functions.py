"""Functions are replaced in place (CREATE OR REPLACE: callers never see them missing);
partition settings follow the profile: the maintenance function's own table of specs,
or pg_partman's part_config. Triggers only change with the schema, which is refused."""

from __future__ import annotations

from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.types import Difference, Refusal, Step


def function_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    for difference in ctx.of("function"):
        outcome.take(difference)
        name = difference.key[2]
        if difference.removed:
            outcome.refusals.append(
                _refusal(difference, "a function appears or goes only with another partition manager")
            )
            continue
        # a function missing from a live database is created the same way
        sql = str(difference.new).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
        outcome.steps.append(
            Step(
                "prepare",
                f"replace function {name}() in place",
                (sql,),
                "plain",
                None,
                (),
                "catalog",
                "the downgrade replaces it with the previous body",
            )
        )
    return outcome


def partition_steps(ctx: Context) -> Outcome:
    """The partitioning itself is carried by the maintenance function (above) or by
    pg_partman's configuration (here); existing partitions keep their bounds."""
    outcome = Outcome()
    outcome.take(*ctx.of("partitioning"))
    for difference in ctx.of("block"):
        name = difference.key[2]
        if not name.endswith("_partman") or difference.added or difference.removed:
            continue
        outcome.take(difference)
        table = name.removesuffix("_partman")
        old, new = ctx.old.table(table).partitioning, ctx.new.table(table).partitioning
        assert old is not None and new is not None
        if old.granularity != new.granularity:
            outcome.refusals.append(_partman_interval(table, old.granularity, new.granularity))
            continue
        parent = f"{ctx.new.schema}.{table}"
        outcome.steps.append(
            Step(
                "switch",
                f"pg_partman keeps {new.runway} {table} partitions ahead and drops them after "
                f"{new.retention_seconds} seconds",
                (
                    f"UPDATE partman.part_config SET retention = '{new.retention_seconds} seconds', "
                    f"premake = {new.runway} WHERE parent_table = '{parent}'",
                ),
                "plain",
                None,
                (),
                "catalog",
                "the downgrade writes the previous settings",
            )
        )
    return outcome


def _partman_interval(table: str, old: str, new: str) -> Refusal:
    return Refusal(
        f"{table} partitions",
        f"{table} partitions: {old} -> {new} under pg_partman",
        "pg_partman's partition interval of an existing set cannot change in place",
        (
            f"expand: turn pg_partman's maintenance of {table} off (part_config.automatic_maintenance "
            f"= 'off') while its {old} partitions still reach a few periods ahead",
            f"switch: create the next partitions as 1 {new} ranges by hand, from the newest partition's "
            "upper bound",
            "backfill: nothing (rows stay in the partitions they are in)",
            f"contract: set part_config.partition_interval to '1 {new}', turn maintenance back on, then "
            "record the profile with `agentddl generate PROFILE --out DIR --dsn DB`",
        ),
    )


def _refusal(difference: Difference, reason: str) -> Refusal:
    name = difference.key[2]
    verb = "added" if difference.added else "removed"
    return Refusal(
        f"function {name}",
        f"function {name}() is {verb}",
        reason,
        (
            "expand: create the new function beside the old one",
            "switch: point the scheduled job at it",
            "contract: drop the old one, then record the profile with "
            "`agentddl generate PROFILE --out DIR --dsn DB`",
        ),
    )
