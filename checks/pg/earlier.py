"""What earlier statements of this migration did, beyond `Context.created_relations`:
schemas, types, enum values, functions and columns created, partitions detached,
constraints named, `ALTER TABLE` commands per table. Objects made in this migration are
new: no running code depends on them and no existing rows fill them.

The walker files every statement in the migration's `History` under the context-free
keys `index_keys` returns (names as written), so each question here costs only its
matches, not a scan of every earlier statement (quadratic on big files). The matches
are then resolved in the asking statement's Context, as a scan would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ObjectType

from agentddl.checks.pg.ast_helpers import (
    const_value,
    is_new_relation,
    name_list,
    relation_name,
)
from agentddl.checks.pg.columns import added_columns, altered_table, table_commands
from agentddl.checks.pg.names import RelationName
from agentddl.checks.pg.statements import Context, History, Statement


def index_keys(statement: Statement) -> list[object]:
    """The keys a statement is filed under (besides its node type and transaction)."""
    keys = _KEYS.get(type(statement.node))
    return keys(statement.node) if keys is not None else []


def _alter_table_keys(node: ast.AlterTableStmt) -> list[object]:
    keys: list[object] = [("detach", cmd.def_.name.relname) for cmd in node.cmds or () if _detaches(cmd)]
    if table_commands(node) and isinstance(node.relation, ast.RangeVar):
        table = node.relation.relname
        keys.append(("alter", table))
        keys.extend(("add-column", table, column.colname) for column in added_columns(node))
    return keys + _constraint_keys(node)


def _type_keys(node: Any) -> list[object]:
    created = _created_type_name(node)
    name = created[-1] if created else _renamed_type_name(node)
    return [("type", name)] if name else []


def _constraint_keys(node: Any) -> list[object]:
    """The names of the constraints a CREATE TABLE, ALTER TABLE or CREATE/ALTER DOMAIN
    defines (table constraints and column constraints)."""
    if isinstance(node, ast.CreateForeignTableStmt):
        node = node.base
    if isinstance(node, ast.CreateStmt):
        elements: tuple[Any, ...] = tuple(node.tableElts or ())
    elif isinstance(node, ast.AlterTableStmt):
        elements = tuple(getattr(cmd, "def_", None) for cmd in node.cmds or ())
    elif isinstance(node, ast.CreateDomainStmt):
        elements = tuple(node.constraints or ())
    elif isinstance(node, ast.AlterDomainStmt):
        elements = (node.def_,)
    else:
        return []
    constraints = [
        c for e in elements for c in (e.constraints or () if isinstance(e, ast.ColumnDef) else (e,))
    ]
    return [("constraint", c.conname) for c in constraints if isinstance(c, ast.Constraint) and c.conname]


_KEYS: dict[type, Callable[[Any], list[object]]] = {
    ast.CreateSchemaStmt: lambda n: [("schema", n.schemaname)] if n.schemaname else [],
    ast.AlterTableStmt: _alter_table_keys,
    ast.CreateEnumStmt: _type_keys,
    ast.CreateRangeStmt: _type_keys,
    ast.CompositeTypeStmt: _type_keys,
    ast.RenameStmt: _type_keys,
    ast.CreateDomainStmt: lambda n: _type_keys(n) + _constraint_keys(n),
    ast.AlterEnumStmt: lambda n: [("enum-value", n.newVal)] if n.oldVal is None and n.newVal else [],
    ast.CreateFunctionStmt: lambda n: [] if n.is_procedure else [("function", name_list(n.funcname)[-1])],
    ast.CreateStmt: _constraint_keys,
    ast.CreateForeignTableStmt: _constraint_keys,
    ast.AlterDomainStmt: _constraint_keys,
}


def recorded(context: Context) -> History:
    """The walker's History; for a hand-built Context, one indexed from `earlier` now."""
    if context.history is not None:
        return context.history
    history = History()
    for statement in context.earlier:
        history.add(statement, context, index_keys(statement))
    return history


def _before(key: object, context: Context) -> tuple[Statement, ...]:
    return recorded(context).before(key, len(context.earlier))


def schema_created_earlier(schema: str, context: Context) -> bool:
    """True when `CREATE SCHEMA schema` ran earlier in this migration."""
    return recorded(context).has_before(("schema", schema), len(context.earlier))


def is_new(range_var: ast.RangeVar | None, context: Context) -> bool:
    """A relation created earlier in this migration, or named in a schema that was.

    Only an explicit schema counts: an unqualified name of an existing table resolves
    past a new, empty schema at the head of the search_path.
    """
    if range_var is None:
        return False
    if is_new_relation(range_var, context):
        return True
    schema = range_var.schemaname
    return schema_created_earlier(schema, context) if schema else False


def earlier_commands(
    relation: RelationName, context: Context, within: Statement | None = None
) -> Iterator[tuple[Statement, ast.AlterTableCmd]]:
    """Every `ALTER TABLE relation` command of earlier statements, oldest first; with
    `within`, only those of its transaction block (none when it autocommits)."""
    if within is not None and not within.in_transaction_block:
        return
    for earlier in _before(("alter", relation.name), context):
        if within is not None and earlier.transaction != within.transaction:
            continue
        if altered_table(earlier, context) == relation:
            for cmd in table_commands(earlier.node):
                yield earlier, cmd


def column_added_earlier(relation: RelationName, column: str, context: Context) -> bool:
    """True when an earlier `ALTER TABLE relation ADD COLUMN column` ran in this migration."""
    return any(
        altered_table(statement, context) == relation
        for statement in _before(("add-column", relation.name, column), context)
    )


def detached_earlier(relation: RelationName, context: Context) -> bool:
    """True when an earlier statement detached `relation` from its partitioned parent."""
    for statement in _before(("detach", relation.name), context):
        for cmd in statement.node.cmds or ():
            if _detaches(cmd) and relation_name(cmd.def_.name, context) == relation:
                return True
    return False


def _detaches(cmd: Any) -> bool:
    return (
        isinstance(cmd, ast.AlterTableCmd)
        and cmd.subtype == AlterTableType.AT_DetachPartition
        and isinstance(cmd.def_, ast.PartitionCmd)
        and cmd.def_.name is not None
    )


def constraint_named_in_transaction(name: str, statement: Statement, context: Context) -> bool:
    """True when an earlier statement of `statement`'s transaction block named a
    constraint `name` (added it, in a CREATE TABLE or ALTER TABLE/DOMAIN)."""
    if not statement.in_transaction_block:
        return False
    return any(s.transaction == statement.transaction for s in _before(("constraint", name), context))


def type_created_earlier(names: Sequence[Any] | None, context: Context) -> bool:
    """True when the (possibly qualified) type was created in this migration (an enum,
    composite, range or domain), or renamed from one that was.

    An unqualified name matches a type created in any schema of the search_path; an
    unqualified CREATE counts as made in the search_path's first schema.
    """
    wanted = name_list(names)
    if not wanted:
        return False
    schemas = [wanted[-2]] if len(wanted) >= 2 else list(context.search_path)
    position = len(context.earlier)
    return any(_type_made(schema, wanted[-1], position, context) for schema in schemas)


def _type_made(schema: str, name: str, position: int, context: Context) -> bool:
    """`schema.name` was created, or renamed from a created type, before `position`."""
    first = context.search_path[0] if context.search_path else "public"
    for statement in recorded(context).before(("type", name), position):
        parts = _created_type_name(statement.node)
        if parts and (parts[-2] if len(parts) >= 2 else first, parts[-1]) == (schema, name):
            return True
        renamed = _renamed_type(statement.node, first)
        # A type renamed from a new one stays new.
        if (
            renamed is not None
            and renamed[1] == (schema, name)
            and _type_made(*renamed[0], statement.index, context)
        ):
            return True
    return False


def _renamed_type_name(node: Any) -> str | None:
    renamed = _renamed_type(node, "")
    return renamed[1][1] if renamed is not None else None


def _renamed_type(node: Any, first: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """((schema, old), (schema, new)) for `ALTER TYPE|DOMAIN old RENAME TO new`."""
    kinds = (ObjectType.OBJECT_TYPE, ObjectType.OBJECT_DOMAIN)
    if not isinstance(node, ast.RenameStmt) or node.renameType not in kinds or not node.newname:
        return None
    parts = name_list(node.object if isinstance(node.object, tuple) else ())
    if not parts:
        return None
    schema = parts[-2] if len(parts) >= 2 else first
    return (schema, parts[-1]), (schema, node.newname)


def _created_type_name(node: Any) -> list[str]:
    if isinstance(node, (ast.CreateEnumStmt, ast.CreateRangeStmt)):
        return name_list(node.typeName)
    if isinstance(node, ast.CreateDomainStmt):
        return name_list(node.domainname)
    if isinstance(node, ast.CompositeTypeStmt) and node.typevar is not None:
        return [p for p in (node.typevar.schemaname, node.typevar.relname) if p]
    return []


def enum_value_added_earlier(names: Sequence[Any] | None, value: str, context: Context) -> bool:
    """True when `ALTER TYPE ... ADD VALUE value` ran earlier in this migration on a type
    of the same (unqualified) name."""
    wanted = name_list(names)
    return any(
        name_list(s.node.typeName)[-1:] == wanted[-1:] for s in _before(("enum-value", value), context)
    )


def function_volatility(name: str, context: Context) -> str | None:
    """The volatility of the function `name` as last created earlier in this migration
    (`volatile` when CREATE FUNCTION does not say); None when it created none."""
    created = _before(("function", name), context)
    if not created:
        return None
    options = [o for o in created[-1].node.options or () if isinstance(o, ast.DefElem)]
    declared = [const_value(o.arg) for o in options if o.defname == "volatility"]
    return str(declared[-1]) if declared else "volatile"
