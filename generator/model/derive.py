"""derive(): Profile -> SchemaModel. Pure: no I/O, same input, same output."""

from __future__ import annotations

import agentddl.generator.model.blocks as blocks
import agentddl.generator.model.effects as effects
import agentddl.generator.model.features as features
import agentddl.generator.model.history as history
import agentddl.generator.model.partitions as partitions
import agentddl.generator.model.privileges as privileges
from agentddl.generator.model.access import access_paths
from agentddl.generator.model.layout import LAYOUT, LIVE_SET
from agentddl.generator.model.live import run_queue
from agentddl.generator.model.parts import part_tables
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.tables import attempts, runs, tenants
from agentddl.generator.model.types import SchemaModel, SqlBlock, Table
from agentddl.generator.profile import Profile


def derive(profile: Profile, layout: int = LAYOUT) -> SchemaModel:
    """The schema `profile` describes, in today's layout (or an older one, only to compute
    the upgrade of an install that still has it: model/layout.py)."""
    scope = Scope(profile, layout)
    tables = _tables(scope)
    return SchemaModel(
        profile=profile,
        schema=profile.schema_name,
        tables=tables,
        access_paths=access_paths(bool(scope.tenant and profile.tenancy.row_level_security), profile.model),
        before=_present(
            blocks.roles(scope),
            blocks.schema(scope),
            blocks.become_owner(scope),
            blocks.uuid_v7(scope),
            blocks.event_sequence(scope),
        ),
        after=_after(scope, tables),
        features=features.used(profile.engine.version),
        layout=scope.layout,
    )


def _tables(scope: Scope) -> tuple[Table, ...]:
    core = (
        runs(scope),
        *((run_queue(scope),) if scope.layout >= LIVE_SET else ()),
        attempts(scope),
        history.checkpoints(scope),
        history.events(scope),
        effects.operations(scope),
        effects.outbox(scope),
        *part_tables(scope),
    )
    return (tenants(scope), *core) if scope.tenant else core


def _after(scope: Scope, tables: tuple[Table, ...]) -> tuple[SqlBlock, ...]:
    """Everything up to the role reset is created as the owner role (and belongs to it);
    pg_partman's set-up needs the installer's own rights, after it."""
    partitioned = tuple(t for t in tables if t.partitioning)
    partman = scope.profile.retention.partition_manager == "pg_partman"
    builtin = (
        ()
        if partman
        else (partitions.plan_function(scope, partitioned), partitions.maintenance_procedure(scope))
    )
    return _present(
        blocks.sequence_owner(scope),
        *(blocks.storage(scope, t) for t in tables),
        *(blocks.compression(scope, t) for t in tables),
        *(b for t in tables if t.append_only for b in blocks.append_only(scope, t)),
        *blocks.transition_guard(scope),
        *history.checkpoint_parent_guard(scope),
        *builtin,
        None if partman else partitions.bootstrap(scope),
        privileges.grants(scope, tables),
        *privileges.row_level_security(scope, tables),
        blocks.reset_role(scope),
        *(partitions.partman(scope, partitioned) if partman else ()),
        partitions.bootstrap(scope) if partman else None,
    )


def _present(*items: SqlBlock | None) -> tuple[SqlBlock, ...]:
    return tuple(item for item in items if item is not None)
