"""What a migration statement is, and what is known before it runs.

The walker (`walk.py`) parses a migration once and yields each `Statement` with the
frozen `Context` in force before it: the target major, the runner's transaction model,
the search_path and timeouts set so far, and an append-only index of earlier statements
(`History`). Lint rules and trace's planner both read these; nothing here touches a
database.

- Never scan `context.earlier` in a check: rules run on every statement, so a scan is
  quadratic (20k statements take minutes). Ask the indexes instead:
  `Context.earlier_of(ast.CreateSchemaStmt, ...)`, `Context.same_transaction(statement,
  ast.AlterEnumStmt, ...)`; `earlier` (schemas, types, columns, enum values, functions
  created, partitions detached, ALTER TABLE commands per table); `locks.held_mode` and
  `locks.exclusive_holders` (locks the transaction already holds).
- DO blocks: inner statements arrive as their own Statement (in_do_block=True) right
  after the DoStmt, located at the DO.
- Transactions: `in_transaction_block` follows the runner's real model (psql:
  autocommit unless BEGIN..COMMIT; alembic: explicit BEGIN/COMMIT of the offline SQL,
  or one implicit transaction when the SQL has none). `transaction` ids are equal for
  statements that commit together (`Context.same_transaction`).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from agentddl.checks.pg.names import RelationName

if TYPE_CHECKING:
    from agentddl.checks.pg.schema import SchemaFacts

Runner = Literal["psql", "alembic"]


@dataclass(frozen=True)
class Statement:
    """One top-level SQL statement of a migration (or one found inside a DO block)."""

    node: Any  # the pglast.ast node inside the RawStmt (e.g. ast.IndexStmt)
    sql: str  # the statement's own text
    file: str
    line: int  # 1-based line of the statement's first character
    column: int  # 1-based column of the statement's first character
    offset: int  # 0-based character offset of the statement in its file
    index: int  # position in the migration, 0-based
    transaction: int  # statements sharing this id run in one transaction
    in_transaction_block: bool  # runs inside BEGIN..COMMIT or the runner's implicit transaction
    in_do_block: bool = False  # extracted from a DO $$ ... $$ body (or EXECUTE string)


@dataclass(frozen=True)
class Context:
    """What is known before a statement runs. Built by the walker; never mutated."""

    pg_version: int  # target server major version
    runner: Runner
    # A migration tool's marker runs the file outside a transaction (`-- +goose NO
    # TRANSACTION`, dbmate's `transaction:false`, sql-migrate's `notransaction`).
    no_transaction_marker: bool = False
    search_path: tuple[str, ...] = ("public",)
    created_relations: frozenset[RelationName] = frozenset()  # new, empty: no lock hazard
    lock_timeout_ms: int = 0  # 0 = no timeout in force
    statement_timeout_ms: int = 0
    timezone: str | None = None  # TimeZone the migration set (lower-cased); None: the server's
    earlier: Sequence[Statement] = ()  # every earlier statement of this migration, in order
    options: dict[str, Any] = field(default_factory=dict)  # per-rule config from [tool.agentddl]
    # The schema before the migration (`lint --schema-from`): None when not given.
    schema: SchemaFacts | None = field(default=None, compare=False, repr=False)
    # The walker's append-only index of earlier statements (by node type, by transaction),
    # so `earlier_of` and `same_transaction` need not scan `earlier` (quadratic on big files).
    history: History | None = field(default=None, compare=False, repr=False)

    def is_new(self, relation: RelationName) -> bool:
        """True when the relation was created earlier in this migration."""
        return relation in self.created_relations

    def same_transaction(self, statement: Statement, *node_types: type) -> tuple[Statement, ...]:
        """Earlier statements that share `statement`'s transaction block, in order; with
        `node_types`, only those whose node is one of them (costs only the matches)."""
        if not statement.in_transaction_block:
            return ()
        if self.history is None:
            same = (s for s in self.earlier if s.transaction == statement.transaction)
            return tuple(s for s in same if not node_types or isinstance(s.node, node_types))
        transaction = ("transaction", statement.transaction)
        if not node_types:
            return self.history.before(transaction, len(self.earlier))
        keys = [(*transaction, kind) for kind in node_types]
        return self._merged(keys)

    def earlier_of(self, *node_types: type) -> tuple[Statement, ...]:
        """Earlier statements whose node is one of `node_types`, in order. Prefer this to
        scanning `earlier`: it costs only the matches, so big files stay linear."""
        if self.history is None:
            return tuple(s for s in self.earlier if isinstance(s.node, node_types))
        return self._merged(list(node_types))

    def _merged(self, keys: Sequence[object]) -> tuple[Statement, ...]:
        assert self.history is not None
        found = [s for key in keys for s in self.history.before(key, len(self.earlier))]
        return tuple(sorted(found, key=lambda s: s.index)) if len(keys) > 1 else tuple(found)


class Earlier(Sequence[Statement]):
    """The first `length` statements of the walker's shared, append-only list: what
    `Context.earlier` is during a walk. One list for the whole migration instead of a
    copy per statement (copies are quadratic in time and memory on big files)."""

    def __init__(self, statements: list[Statement], length: int) -> None:
        self._statements, self._length = statements, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Statement: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Statement, ...]: ...
    def __getitem__(self, index: int | slice) -> Statement | tuple[Statement, ...]:
        if isinstance(index, slice):
            return tuple(self._statements[: self._length][index])
        if not -self._length <= index < self._length:
            raise IndexError("earlier statement index out of range")
        return self._statements[index % self._length]

    def __iter__(self) -> Iterator[Statement]:
        return itertools.islice(self._statements, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))


class History:
    """The walker's append-only index of a migration's statements, each with the Context
    in force before it. Lists are keyed by node type, by ("transaction", id), by
    ("transaction", id, node type) and by the extra keys the walker passes to `add` (see
    `earlier.index_keys`). Statement.index is the position in the migration, so the
    statements earlier than the current one are those below `len(context.earlier)`."""

    def __init__(self) -> None:
        self._lists: dict[object, list[Statement]] = {}
        self._contexts: dict[int, Context] = {}
        # Indexes that helper modules build lazily, once per migration (e.g. held locks).
        self.memo: dict[object, Any] = {}

    def add(self, statement: Statement, context: Context, keys: Iterable[object] = ()) -> None:
        """Record a statement and the Context it ran in (the walker calls this after each)."""
        self._contexts[statement.index] = context
        kind, transaction = type(statement.node), ("transaction", statement.transaction)
        for key in dict.fromkeys((kind, transaction, (*transaction, kind), *keys)):
            self._lists.setdefault(key, []).append(statement)

    def before(self, key: object, position: int) -> tuple[Statement, ...]:
        """The statements under `key` whose index is below `position`."""
        items = self._lists.get(key, [])
        end = bisect.bisect_left(items, position, key=lambda s: s.index)
        return tuple(items[:end])

    def has_before(self, key: object, position: int) -> bool:
        """True when some statement under `key` has an index below `position`."""
        items = self._lists.get(key, [])
        return len(items) > 0 and items[0].index < position

    def all(self, key: object) -> list[Statement]:
        """Every statement under `key`, in order (the list itself: do not change it)."""
        return self._lists.get(key, [])

    def context_of(self, statement: Statement) -> Context:
        """The Context in force before `statement` ran."""
        return self._contexts[statement.index]
