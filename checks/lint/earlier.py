"""What earlier statements of this migration created, beyond `Context.created_relations`:
schemas, enum types and enum values, columns added to existing tables, partitions
detached. Objects made in this migration have no running code depending on them yet.

(Private to the rules package: discovery skips `_` modules. Candidates for
`ast_helpers` once another rule needs them.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ObjectType

from agentddl.checks.lint.ast_helpers import is_new_relation, name_list, relation_name
from agentddl.checks.lint.columns import added_columns, earlier_commands
from agentddl.checks.lint.types import Context, RelationName


def schema_created_earlier(schema: str, context: Context) -> bool:
    """True when `CREATE SCHEMA schema` ran earlier in this migration."""
    return any(
        isinstance(s.node, ast.CreateSchemaStmt) and s.node.schemaname == schema for s in context.earlier
    )


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


def column_added_earlier(relation: RelationName, column: str, context: Context) -> bool:
    """True when an earlier `ALTER TABLE relation ADD COLUMN column` ran in this migration."""
    return any(
        definition.colname == column
        for statement, _ in earlier_commands(relation, context)
        for definition in added_columns(statement.node)
    )


def detached_earlier(relation: RelationName, context: Context) -> bool:
    """True when an earlier statement detached `relation` from its partitioned parent."""
    for statement in context.earlier:
        node = statement.node
        if not isinstance(node, ast.AlterTableStmt):
            continue
        for cmd in node.cmds or ():
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


def type_created_earlier(names: Sequence[Any] | None, context: Context) -> bool:
    """True when the (possibly qualified) type was created in this migration (an enum,
    composite, range or domain).

    An unqualified name matches a type created in any schema of the search_path; an
    unqualified CREATE counts as made in the search_path's first schema.
    """
    wanted = name_list(names)
    candidates = (
        {(wanted[-2], wanted[-1])}
        if len(wanted) >= 2
        else {(schema, wanted[-1]) for schema in context.search_path}
    )
    return bool(candidates & _created_types(context))


def _created_types(context: Context) -> set[tuple[str, str]]:
    first = context.search_path[0] if context.search_path else "public"
    created: set[tuple[str, str]] = set()
    for statement in context.earlier:
        parts = _created_type_name(statement.node)
        if parts:
            created.add((parts[-2] if len(parts) >= 2 else first, parts[-1]))
        renamed = _renamed_type(statement.node, first)
        if renamed is not None and renamed[0] in created:  # a new type keeps being new
            created.add(renamed[1])
    return created


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
        isinstance(s.node, ast.AlterEnumStmt)
        and s.node.oldVal is None
        and s.node.newVal == value
        and name_list(s.node.typeName)[-1:] == wanted[-1:]
        for s in context.earlier
    )
