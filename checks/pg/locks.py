"""Which lock a statement takes on which relation, from PostgreSQL's "Explicit Locking"
table (https://www.postgresql.org/docs/current/explicit-locking.html) and the lock
levels ALTER TABLE documents per subcommand (AlterTableGetLockLevel in tablecmds.c).

`locks_taken` answers for relations that existed before the migration (the ones a lock
can hurt); `all_locks` includes relations created earlier in it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import Any

from pglast import ast, enums

from agentddl.checks.pg.ast_helpers import option_enabled, qualified_name, relation_name
from agentddl.checks.pg.earlier import recorded
from agentddl.checks.pg.lockmodes import LockMode
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context, History, Statement

Lock = tuple[RelationName, LockMode]
_AT = enums.AlterTableType
_SUE, _SRE, _AE = (
    LockMode.SHARE_UPDATE_EXCLUSIVE,
    LockMode.SHARE_ROW_EXCLUSIVE,
    LockMode.ACCESS_EXCLUSIVE,
)
_ALTER_TABLE_LEVELS: dict[Any, LockMode] = {
    _AT.AT_ValidateConstraint: _SUE,
    _AT.AT_SetStatistics: _SUE,
    _AT.AT_SetOptions: _SUE,
    _AT.AT_ResetOptions: _SUE,
    _AT.AT_ClusterOn: _SUE,
    _AT.AT_DropCluster: _SUE,
    _AT.AT_SetRelOptions: _SUE,
    _AT.AT_ResetRelOptions: _SUE,
    _AT.AT_DetachPartitionFinalize: _SUE,
    _AT.AT_AttachPartition: _SUE,
    _AT.AT_EnableTrig: _SRE,
    _AT.AT_EnableAlwaysTrig: _SRE,
    _AT.AT_EnableReplicaTrig: _SRE,
    _AT.AT_DisableTrig: _SRE,
    _AT.AT_EnableTrigAll: _SRE,
    _AT.AT_DisableTrigAll: _SRE,
    _AT.AT_EnableTrigUser: _SRE,
    _AT.AT_DisableTrigUser: _SRE,
}


def locks_taken(statement: Statement, context: Context) -> list[Lock]:
    """Locks `statement` takes on relations that existed before this migration."""
    return [lock for lock in all_locks(statement, context) if not context.is_new(lock[0])]


def strongest_lock(statement: Statement, context: Context) -> Lock | None:
    """The strongest lock taken on a pre-existing relation, or None."""
    locks = locks_taken(statement, context)
    return max(locks, key=lambda lock: lock[1]) if locks else None


def held_mode(relation: RelationName, statement: Statement, context: Context) -> LockMode | None:
    """The strongest lock earlier statements of `statement`'s transaction block took on
    `relation` (new relations included); None when they took none."""
    if not statement.in_transaction_block:
        return None
    return _held(statement, context).mode(relation, len(context.earlier))


def waits_for_writers_lock(statement: Statement, context: Context) -> list[Lock]:
    """The write-blocking (SHARE or stronger) locks `statement` takes on pre-existing
    relations that its transaction does not already hold that strongly: the locks it may
    queue for."""
    return [
        (relation, mode)
        for relation, mode in locks_taken(statement, context)
        if mode.blocks_writes() and (held_mode(relation, statement, context) or 0) < mode
    ]


def exclusive_holders(statement: Statement, context: Context) -> list[tuple[Lock, Statement]]:
    """The ACCESS EXCLUSIVE locks on pre-existing relations that earlier statements of
    `statement`'s transaction block hold, oldest first, each with the statement that took it."""
    if not statement.in_transaction_block:
        return []
    return _held(statement, context).exclusive(len(context.earlier))


def _held(statement: Statement, context: Context) -> _TransactionLocks:
    history = recorded(context)
    key = ("held-locks", statement.transaction)
    if key not in history.memo:
        history.memo[key] = _TransactionLocks(history, statement.transaction)
    ledger: _TransactionLocks = history.memo[key]
    return ledger


class _TransactionLocks:
    """The locks one transaction's statements take, each read in the Context it ran in,
    recorded lazily in order: asking at every statement costs O(1) amortized (plus a
    bisection), where re-deriving them from every earlier statement is quadratic."""

    def __init__(self, history: History, transaction: int) -> None:
        self._history = history
        self._statements = history.all(("transaction", transaction))
        self._done = 0
        self._modes: dict[RelationName, list[tuple[int, LockMode]]] = {}  # (index, strongest so far)
        self._exclusive: list[tuple[int, Lock, Statement]] = []  # first ACCESS EXCLUSIVE per relation
        self._exclusive_relations: set[RelationName] = set()

    def mode(self, relation: RelationName, position: int) -> LockMode | None:
        self._record_until(position)
        entries = self._modes.get(relation, [])
        end = bisect.bisect_left(entries, position, key=lambda entry: entry[0])
        return entries[end - 1][1] if end else None

    def exclusive(self, position: int) -> list[tuple[Lock, Statement]]:
        self._record_until(position)
        end = bisect.bisect_left(self._exclusive, position, key=lambda entry: entry[0])
        return [(lock, statement) for _, lock, statement in self._exclusive[:end]]

    def _record_until(self, position: int) -> None:
        while self._done < len(self._statements) and self._statements[self._done].index < position:
            self._record(self._statements[self._done])
            self._done += 1

    def _record(self, statement: Statement) -> None:
        context = self._history.context_of(statement)
        for relation, mode in all_locks(statement, context):
            entries = self._modes.setdefault(relation, [])
            entries.append((statement.index, max(mode, entries[-1][1]) if entries else mode))
            exclusive = mode == LockMode.ACCESS_EXCLUSIVE and not context.is_new(relation)
            if exclusive and relation not in self._exclusive_relations:
                self._exclusive_relations.add(relation)
                self._exclusive.append((statement.index, (relation, mode), statement))


def all_locks(statement: Statement, context: Context) -> list[Lock]:
    """Every (relation, mode) the statement locks, strongest mode per relation."""
    handler = _HANDLERS.get(type(statement.node))
    if handler is None:
        return []
    strongest: dict[RelationName, LockMode] = {}
    for relation, mode in handler(statement.node, context):
        strongest[relation] = max(mode, strongest.get(relation, mode))
    return list(strongest.items())


_Locks = Iterator[Lock]


def _rv(range_var: ast.RangeVar | None, context: Context, mode: LockMode) -> _Locks:
    if range_var is not None and range_var.relname:
        yield relation_name(range_var, context), mode


def _index(node: ast.IndexStmt, context: Context) -> _Locks:
    yield from _rv(node.relation, context, _SUE if node.concurrent else LockMode.SHARE)


def _drop(node: ast.DropStmt, context: Context) -> _Locks:
    kinds = enums.ObjectType
    relation_kinds = (
        kinds.OBJECT_TABLE,
        kinds.OBJECT_INDEX,
        kinds.OBJECT_VIEW,
        kinds.OBJECT_MATVIEW,
        kinds.OBJECT_SEQUENCE,
        kinds.OBJECT_FOREIGN_TABLE,
    )
    if node.removeType not in relation_kinds:
        return
    concurrent = node.removeType == kinds.OBJECT_INDEX and node.concurrent
    for names in node.objects or ():
        yield qualified_name(names, context), _SUE if concurrent else _AE


def _alter_table(node: ast.AlterTableStmt, context: Context) -> _Locks:
    for cmd in node.cmds or ():
        yield from _rv(node.relation, context, _alter_level(cmd, context))
        yield from _alter_side_locks(cmd, context)


def _alter_level(cmd: ast.AlterTableCmd, context: Context) -> LockMode:
    if cmd.subtype == _AT.AT_AddConstraint and _is_foreign_key(cmd.def_):
        return _SRE
    if cmd.subtype == _AT.AT_DetachPartition:
        return _SUE if getattr(cmd.def_, "concurrent", False) else _AE
    if cmd.subtype == _AT.AT_AttachPartition and context.pg_version < 12:
        return _AE
    return _ALTER_TABLE_LEVELS.get(cmd.subtype, _AE)


def _alter_side_locks(cmd: ast.AlterTableCmd, context: Context) -> _Locks:
    """Locks on other relations: the referenced table of a new FK, the partition."""
    definition = cmd.def_
    if isinstance(definition, ast.PartitionCmd):
        concurrent = cmd.subtype == _AT.AT_DetachPartition and definition.concurrent
        yield from _rv(definition.name, context, _SUE if concurrent else _AE)
    for constraint in _constraints(definition):
        if _is_foreign_key(constraint):
            yield from _rv(constraint.pktable, context, _SRE)


def _constraints(definition: Any) -> list[ast.Constraint]:
    if isinstance(definition, ast.Constraint):
        return [definition]
    if isinstance(definition, ast.ColumnDef):
        return [c for c in definition.constraints or () if isinstance(c, ast.Constraint)]
    return []


def _is_foreign_key(node: Any) -> bool:
    return isinstance(node, ast.Constraint) and node.contype == enums.ConstrType.CONSTR_FOREIGN


def _create_table(node: ast.CreateStmt, context: Context) -> _Locks:
    # The new table itself is invisible to others until commit: only its neighbours count
    # (a parent it is a partition of, tables its foreign keys reference).
    own = relation_name(node.relation, context) if node.relation is not None else None
    if node.partbound is not None:
        for parent in node.inhRelations or ():
            yield from _rv(parent, context, _AE)
    for element in node.tableElts or ():
        for constraint in _constraints(element):
            if _is_foreign_key(constraint):
                for lock in _rv(constraint.pktable, context, _SRE):
                    if lock[0] != own:  # a self-reference (parent_run_id -> runs)
                        yield lock


def _rename(node: ast.RenameStmt, context: Context) -> _Locks:
    kinds = enums.ObjectType
    if node.renameType == kinds.OBJECT_INDEX and context.pg_version >= 12:
        yield from _rv(node.relation, context, _SUE)
    else:
        yield from _rv(node.relation, context, _AE)


def _reindex(node: ast.ReindexStmt, context: Context) -> _Locks:
    concurrent = option_enabled(node.params, "concurrently")
    kind = enums.ReindexObjectType
    if node.kind == kind.REINDEX_OBJECT_INDEX:
        yield from _rv(node.relation, context, _SUE if concurrent else _AE)
    elif node.kind == kind.REINDEX_OBJECT_TABLE:
        yield from _rv(node.relation, context, _SUE if concurrent else LockMode.SHARE)


def _vacuum(node: ast.VacuumStmt, context: Context) -> _Locks:
    full = option_enabled(node.options, "full")
    for rel in node.rels or ():
        yield from _rv(rel.relation, context, _AE if full and node.is_vacuumcmd else _SUE)


def _lock(node: ast.LockStmt, context: Context) -> _Locks:
    for range_var in node.relations or ():
        yield from _rv(range_var, context, LockMode(node.mode or 8))


def _relations(mode: LockMode, field: str) -> Callable[[Any, Context], _Locks]:
    def handler(node: Any, context: Context) -> _Locks:
        value = getattr(node, field, None)
        for range_var in value if isinstance(value, tuple) else (value,):
            yield from _rv(range_var, context, mode)

    return handler


def _refresh(node: ast.RefreshMatViewStmt, context: Context) -> _Locks:
    yield from _rv(node.relation, context, LockMode.EXCLUSIVE if node.concurrent else _AE)


def _comment(node: ast.CommentStmt, context: Context) -> _Locks:
    kinds = enums.ObjectType
    if node.objtype in (kinds.OBJECT_TABLE, kinds.OBJECT_INDEX, kinds.OBJECT_VIEW):
        names = node.object if isinstance(node.object, tuple) else None
        yield qualified_name(names, context), _SUE


_HANDLERS: dict[type, Callable[[Any, Context], _Locks]] = {
    ast.IndexStmt: _index,
    ast.DropStmt: _drop,
    ast.AlterTableStmt: _alter_table,
    ast.CreateStmt: _create_table,
    ast.RenameStmt: _rename,
    ast.ReindexStmt: _reindex,
    ast.VacuumStmt: _vacuum,
    ast.LockStmt: _lock,
    ast.RefreshMatViewStmt: _refresh,
    ast.CommentStmt: _comment,
    ast.ClusterStmt: _relations(_AE, "relation"),
    ast.TruncateStmt: _relations(_AE, "relations"),
    ast.CreateTrigStmt: _relations(_SRE, "relation"),
    ast.CreatePolicyStmt: _relations(_AE, "table"),
    ast.AlterPolicyStmt: _relations(_AE, "table"),
    ast.RuleStmt: _relations(_AE, "relation"),
    ast.InsertStmt: _relations(LockMode.ROW_EXCLUSIVE, "relation"),
    ast.UpdateStmt: _relations(LockMode.ROW_EXCLUSIVE, "relation"),
    ast.DeleteStmt: _relations(LockMode.ROW_EXCLUSIVE, "relation"),
    ast.MergeStmt: _relations(LockMode.ROW_EXCLUSIVE, "relation"),
}
# The statements that lock anything (rules may skip the others).
LOCKING_STATEMENTS = tuple(_HANDLERS)
