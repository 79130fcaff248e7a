"""ADL212: an int (or serial) primary key, or an int foreign key to a bigint key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.sizes import table_size
from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import name_list, relation_name
from agentddl.checks.pg.columns import added_columns, column_constraints, column_type
from agentddl.checks.pg.earlier import recorded
from agentddl.checks.pg.names import ColumnType
from agentddl.checks.pg.statements import History

_LIMITS = {"int2": "32,767", "int4": "2,147,483,647"}
_WIDE = frozenset({"int8", "numeric", "uuid"})


_Reference = tuple[RelationName, str | None]  # a referenced table, and column (None: its key)


@dataclass(frozen=True)
class _Key:
    """One single-column key the statement declares: its column, and for a foreign key
    the referenced table and column (None: that table's primary key)."""

    column: ast.ColumnDef
    references: _Reference | None = None


class IntegerKeyOverflow(Rule):
    """
    ## What it does
    Flags a single-column primary key declared `smallint`, `integer`, `smallserial`
    or `serial` (identity columns included) on a new table or an added column, and a
    single-column foreign key declared `smallint` or `integer` that references a
    `bigint` (or `numeric`, `uuid`) key, known from a table created earlier in the
    migration or from `--schema-from`. Composite keys (a per-parent sequence number
    next to a bigint id) and temporary tables are not flagged.

    A **warning** without sizes. With production's sizes (`--sizes-from`: a database, a
    schema with statistics, or an agentddl profile's volume and retention; or
    `table_rows` in the configuration), a primary key's finding follows the table's
    expected size: info on a small table,
    warning on a medium one, **error** on a large one (`table_size` in the
    configuration). A foreign key to a wider key is always a warning.

    ## Why is this bad?
    An `integer` key runs out at 2,147,483,647 (a `smallint` at 32,767): the next
    insert fails with "nextval: reached maximum value of sequence" or "integer out of
    range", and every writer of the table stops. Sequence values are spent by rolled
    back inserts and `ON CONFLICT DO NOTHING` too, so the limit comes sooner than the row
    count suggests. Widening the key later rewrites the table and every index and
    referencing table under an ACCESS EXCLUSIVE lock. An `integer` foreign key to a
    `bigint` key fails as soon as the referenced ids pass the integer range.

    ## Example
    ```sql
    CREATE TABLE agent.events (
        id serial PRIMARY KEY,
        run_id integer REFERENCES agent.runs (id)  -- runs.id is bigint
    );
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_id bigint REFERENCES agent.runs (id)
    );
    ```

    ## In an Alembic migration
    ```python
    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        sa.Column("run_id", sa.BigInteger(), sa.ForeignKey("agent.runs.id")),
        schema="agent",
    )
    ```

    ## References
    - https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-INT
    - https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-SERIAL
    """

    code = "ADL212"
    name = "integer-key-overflow"
    severity = "warning"
    scales_with_table_size = True
    node_types = (ast.CreateStmt, ast.AlterTableStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, self.node_types) or statement.in_do_block or node.relation is None:
            return
        if node.relation.relpersistence == "t":
            return
        table = relation_name(node.relation, context)
        primary, foreign = _keys(node, context, table)
        for column in primary:
            kind = _narrow(column)
            if kind is not None:
                sized = table_size(statement, context) is not None
                yield Violation(
                    message=f"The primary key {table}.{column.colname} is {_shown(kind)}: inserts fail"
                    f" once its values pass {_LIMITS[kind]}, and widening it rewrites the table.",
                    fix="Use bigint (bigint GENERATED ALWAYS AS IDENTITY, or bigserial).",
                    severity="error" if sized else None,
                    location=_at(column, statement),
                )
        for key in foreign:
            yield from _foreign(table, key, statement, context)


def _foreign(table: RelationName, key: _Key, statement: Statement, context: Context) -> Iterator[Violation]:
    kind = _narrow(key.column)
    if kind is None or key.references is None:
        return
    target, column = key.references
    found = _referenced_type(target, column, statement, context)
    if found is None or found[1].name not in _WIDE:
        return
    yield Violation(
        message=f"{table}.{key.column.colname} is {_shown(kind)} but references {target}.{found[0]}"
        f" ({found[1].name}): inserts fail once the referenced ids pass {_LIMITS[kind]}.",
        fix=f"Declare {key.column.colname} as {found[1].name}, like the key it references.",
        location=_at(key.column, statement),
        by_size=False,
    )


def _at(column: ast.ColumnDef, statement: Statement) -> int | None:
    """The column definition's offset inside the statement's text, when it is there."""
    offset = (column.location or 0) - statement.offset
    return offset if 0 <= offset < len(statement.sql) else None


def _narrow(column: ast.ColumnDef) -> str | None:
    if column.typeName is None or column.typeName.arrayBounds:
        return None
    kind = column_type(column.typeName)
    return kind.name if kind.schema is None and kind.name in _LIMITS else None


def _shown(kind: str) -> str:
    return {"int2": "smallint", "int4": "integer"}[kind]


def _keys(node: object, context: Context, table: RelationName) -> tuple[list[ast.ColumnDef], list[_Key]]:
    """The single-column primary and foreign keys a CREATE TABLE or ADD COLUMN declares."""
    if isinstance(node, ast.CreateStmt):
        columns = [e for e in node.tableElts or () if isinstance(e, ast.ColumnDef)]
        table_constraints = [e for e in node.tableElts or () if isinstance(e, ast.Constraint)]
    else:
        columns, table_constraints = list(added_columns(node)), []
    by_name = {column.colname: column for column in columns if column.colname}
    primary = [c for c in columns if column_constraints(c, ConstrType.CONSTR_PRIMARY)]
    foreign = [
        _Key(c, _target(constraint, context, table))
        for c in columns
        for constraint in column_constraints(c, ConstrType.CONSTR_FOREIGN)
    ]
    for constraint in table_constraints:
        keys = name_list(constraint.keys or constraint.fk_attrs or ())
        if len(keys) != 1 or keys[0] not in by_name:
            continue
        if constraint.contype == ConstrType.CONSTR_PRIMARY:
            primary.append(by_name[keys[0]])
        elif constraint.contype == ConstrType.CONSTR_FOREIGN:
            foreign.append(_Key(by_name[keys[0]], _target(constraint, context, table)))
    return primary, foreign


def _target(
    constraint: ast.Constraint, context: Context, table: RelationName
) -> tuple[RelationName, str | None]:
    referenced = relation_name(constraint.pktable, context) if constraint.pktable is not None else table
    columns = name_list(constraint.pk_attrs or ())
    return referenced, columns[0] if len(columns) == 1 else None


def _referenced_type(
    table: RelationName, column: str | None, statement: Statement, context: Context
) -> tuple[str, ColumnType] | None:
    """(column, type) of the referenced key: from this statement (a self-reference), a
    CREATE TABLE earlier in the migration, or the schema."""
    create = _created_by(table, statement, context)
    if create is not None:
        return _column_of(create, column)
    if context.schema is None or context.schema.table(table) is None:
        return None
    facts = context.schema.table(table)
    assert facts is not None
    if column is None:
        key = context.schema.primary_key(table)
        column = key[0] if len(key) == 1 else None
    found = facts.column(column) if column is not None else None
    return (found.name, found.type) if found is not None and found.type is not None else None


def _created_by(table: RelationName, statement: Statement, context: Context) -> ast.CreateStmt | None:
    """The last CREATE TABLE of `table` up to this statement (this one included: a
    self-reference), from a map built once per migration."""
    own = statement.node
    if isinstance(own, ast.CreateStmt) and own.relation and relation_name(own.relation, context) == table:
        return own
    history = recorded(context)
    if "created-tables" not in history.memo:
        history.memo["created-tables"] = _creates(history)
    made: list[Statement] = history.memo["created-tables"].get(table, [])
    earlier = [s for s in made if s.index < statement.index]
    return earlier[-1].node if earlier else None


def _creates(history: History) -> dict[RelationName, list[Statement]]:
    found: dict[RelationName, list[Statement]] = {}
    for step in history.all(ast.CreateStmt):
        if step.node.relation is not None:
            name = relation_name(step.node.relation, history.context_of(step))
            found.setdefault(name, []).append(step)
    return found


def _column_of(node: ast.CreateStmt, column: str | None) -> tuple[str, ColumnType] | None:
    columns = {e.colname: e for e in node.tableElts or () if isinstance(e, ast.ColumnDef) and e.colname}
    if column is None:
        keys = [c.colname for c in columns.values() if column_constraints(c, ConstrType.CONSTR_PRIMARY)]
        for element in node.tableElts or ():
            if isinstance(element, ast.Constraint) and element.contype == ConstrType.CONSTR_PRIMARY:
                keys.extend(name_list(element.keys or ()) or [""])
        column = keys[0] if len(keys) == 1 else None
    definition = columns.get(column) if column is not None else None
    if definition is None or definition.typeName is None:
        return None
    return definition.colname or "", column_type(definition.typeName)
