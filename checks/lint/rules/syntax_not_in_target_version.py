"""ADL210: syntax that the target PostgreSQL version does not have."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pglast import ast
from pglast.enums import AlterTableType, ConstrType, MergeMatchKind, PartitionStrategy

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import iter_nodes, option_enabled


@dataclass(frozen=True)
class Feature:
    """One piece of syntax, the first major version that has it, and how to do without."""

    since: int
    label: str
    instead: str
    present: Callable[[Any], bool]
    kinds: tuple[type, ...]  # the node types `present` can be true for (to skip the rest)


def _cmd(*subtypes: AlterTableType) -> Callable[[Any], bool]:
    return lambda n: isinstance(n, ast.AlterTableCmd) and n.subtype in subtypes


def _constraint(test: Callable[[ast.Constraint], bool]) -> Callable[[Any], bool]:
    return lambda n: isinstance(n, ast.Constraint) and bool(test(n))


def _reindex_concurrently(node: Any) -> bool:
    return isinstance(node, ast.ReindexStmt) and option_enabled(node.params, "concurrently")


def _table_not_null(node: Any) -> bool:
    """`NOT NULL col` as a table constraint (ADD CONSTRAINT / CREATE TABLE element); the
    column-constraint form `col type NOT NULL` is as old as PostgreSQL."""
    if isinstance(node, ast.AlterTableCmd) and node.subtype == AlterTableType.AT_AddConstraint:
        elements: tuple[Any, ...] = (node.def_,)
    elif isinstance(node, ast.CreateStmt):
        elements = tuple(node.tableElts or ())
    else:
        return False
    return any(isinstance(e, ast.Constraint) and e.contype == ConstrType.CONSTR_NOTNULL for e in elements)


def _not_enforced(constraint: ast.Constraint) -> bool:
    kinds = (ConstrType.CONSTR_CHECK, ConstrType.CONSTR_FOREIGN)
    return constraint.contype in kinds and not constraint.is_enforced


def _alter_enforceability(node: Any) -> bool:
    """`ALTER CONSTRAINT name [NOT] ENFORCED`; its DEFERRABLE forms are older."""
    return isinstance(node, ast.ATAlterConstraint) and bool(node.alterEnforceability)


_SQL_JSON = (
    ast.JsonObjectConstructor,
    ast.JsonArrayConstructor,
    ast.JsonArrayQueryConstructor,
    ast.JsonIsPredicate,
    ast.JsonObjectAgg,
    ast.JsonArrayAgg,
)
_UPGRADE = "Raise --pg-version if every server already runs a newer release."

FEATURES: tuple[Feature, ...] = (
    Feature(
        11,
        "INCLUDE columns in an index",
        "Put the columns in the index key instead.",
        lambda n: bool(
            isinstance(n, (ast.IndexStmt, ast.Constraint))
            and (getattr(n, "indexIncludingParams", None) or getattr(n, "including", None))
        ),
        (ast.IndexStmt, ast.Constraint),
    ),
    Feature(
        11,
        "hash partitioning",
        "Partition by LIST or RANGE instead.",
        lambda n: (
            isinstance(n, ast.PartitionSpec) and n.strategy == PartitionStrategy.PARTITION_STRATEGY_HASH
        ),
        (ast.PartitionSpec,),
    ),
    Feature(
        11,
        "a DEFAULT partition",
        "Create explicit partitions for every range.",
        lambda n: isinstance(n, ast.PartitionBoundSpec) and bool(n.is_default),
        (ast.PartitionBoundSpec,),
    ),
    Feature(
        11,
        "procedures (CREATE PROCEDURE / CALL)",
        "Use a function and SELECT it.",
        lambda n: (
            isinstance(n, ast.CallStmt) or (isinstance(n, ast.CreateFunctionStmt) and bool(n.is_procedure))
        ),
        (ast.CallStmt, ast.CreateFunctionStmt),
    ),
    Feature(
        12,
        "stored generated columns",
        "Fill the column from a trigger.",
        _constraint(lambda c: c.contype == ConstrType.CONSTR_GENERATED and c.generated_kind == "s"),
        (ast.Constraint,),
    ),
    Feature(
        12,
        "REINDEX ... CONCURRENTLY",
        "Build a twin index CONCURRENTLY, drop the old one CONCURRENTLY, rename the twin.",
        _reindex_concurrently,
        (ast.ReindexStmt,),
    ),
    Feature(
        13,
        "ALTER COLUMN ... DROP EXPRESSION",
        "Recreate the column.",
        _cmd(AlterTableType.AT_DropExpression),
        (ast.AlterTableCmd,),
    ),
    Feature(
        14,
        "DETACH PARTITION ... CONCURRENTLY",
        "Use a plain DETACH PARTITION.",
        lambda n: isinstance(n, ast.PartitionCmd) and bool(n.concurrent),
        (ast.PartitionCmd,),
    ),
    Feature(
        14,
        "DETACH PARTITION ... FINALIZE",
        "Use a plain DETACH PARTITION.",
        _cmd(AlterTableType.AT_DetachPartitionFinalize),
        (ast.AlterTableCmd,),
    ),
    Feature(
        14,
        "column COMPRESSION",
        "Drop the COMPRESSION clause (pglz is used).",
        lambda n: (
            (isinstance(n, ast.ColumnDef) and bool(n.compression))
            or _cmd(AlterTableType.AT_SetCompression)(n)
        ),
        (ast.ColumnDef, ast.AlterTableCmd),
    ),
    Feature(
        14,
        "CREATE OR REPLACE TRIGGER",
        "DROP TRIGGER IF EXISTS, then CREATE TRIGGER.",
        lambda n: isinstance(n, ast.CreateTrigStmt) and bool(n.replace),
        (ast.CreateTrigStmt,),
    ),
    Feature(
        15,
        "NULLS NOT DISTINCT",
        "Use a partial unique index or a COALESCE expression.",
        lambda n: isinstance(n, (ast.IndexStmt, ast.Constraint)) and bool(n.nulls_not_distinct),
        (ast.IndexStmt, ast.Constraint),
    ),
    Feature(
        15,
        "MERGE",
        "Use INSERT ... ON CONFLICT, or UPDATE then INSERT.",
        lambda n: isinstance(n, ast.MergeStmt),
        (ast.MergeStmt,),
    ),
    Feature(
        15,
        "ALTER TABLE ... SET ACCESS METHOD",
        "Recreate the table.",
        _cmd(AlterTableType.AT_SetAccessMethod),
        (ast.AlterTableCmd,),
    ),
    Feature(
        16,
        "SQL/JSON constructors and IS JSON",
        "Use json_build_object() and friends.",
        lambda n: isinstance(n, _SQL_JSON),
        _SQL_JSON,
    ),
    Feature(
        17,
        "JSON_TABLE / JSON_QUERY / JSON_VALUE / JSON_EXISTS",
        "Use jsonb_path_query() and jsonb_to_recordset().",
        lambda n: isinstance(n, (ast.JsonTable, ast.JsonFuncExpr)),
        (ast.JsonTable, ast.JsonFuncExpr),
    ),
    Feature(
        17,
        "MERGE ... WHEN NOT MATCHED BY SOURCE",
        "Follow the MERGE with a DELETE.",
        lambda n: (
            isinstance(n, ast.MergeWhenClause)
            and n.matchKind == MergeMatchKind.MERGE_WHEN_NOT_MATCHED_BY_SOURCE
        ),
        (ast.MergeWhenClause,),
    ),
    Feature(
        17,
        "MERGE ... RETURNING",
        "Query the changed rows afterwards.",
        lambda n: isinstance(n, ast.MergeStmt) and n.returningClause is not None,
        (ast.MergeStmt,),
    ),
    Feature(
        17,
        "ALTER COLUMN ... SET EXPRESSION",
        "Recreate the generated column.",
        _cmd(AlterTableType.AT_SetExpression),
        (ast.AlterTableCmd,),
    ),
    Feature(
        18,
        "NOT NULL as a table constraint (incl. NOT NULL ... NOT VALID)",
        "Use a CHECK (col IS NOT NULL) NOT VALID constraint, VALIDATE it, then SET NOT NULL.",
        _table_not_null,
        (ast.AlterTableCmd, ast.CreateStmt),
    ),
    Feature(
        18,
        "virtual generated columns (VIRTUAL, or no STORED)",
        "Write GENERATED ALWAYS AS (...) STORED, or compute it in a view.",
        _constraint(lambda c: c.contype == ConstrType.CONSTR_GENERATED and c.generated_kind == "v"),
        (ast.Constraint,),
    ),
    Feature(
        18,
        "NOT ENFORCED constraints",
        "Leave the constraint out, or add it NOT VALID.",
        _constraint(_not_enforced),
        (ast.Constraint,),
    ),
    Feature(
        18,
        "ALTER CONSTRAINT ... [NOT] ENFORCED",
        "Drop the constraint and add it again (NOT VALID, then VALIDATE), or leave it as it is.",
        _alter_enforceability,
        (ast.ATAlterConstraint,),
    ),
    Feature(
        18,
        "temporal keys (WITHOUT OVERLAPS / PERIOD)",
        "Use an EXCLUDE constraint.",
        _constraint(lambda c: bool(c.without_overlaps or c.fk_with_period or c.pk_with_period)),
        (ast.Constraint,),
    ),
)


class SyntaxNotInTargetVersion(Rule):
    """
    ## What it does
    Flags syntax the target PostgreSQL version does not have, where the migration
    would fail.

    Flags syntax the target PostgreSQL version (`--pg-version`) does not have, so the
    migration would fail there: for example `REINDEX ... CONCURRENTLY` before 12,
    `DETACH PARTITION ... CONCURRENTLY` and column `COMPRESSION` before 14,
    `NULLS NOT DISTINCT`, `MERGE` and `SET ACCESS METHOD` before 15, SQL/JSON
    constructors before 16, `JSON_TABLE` and `MERGE ... RETURNING` before 17, and
    PostgreSQL 18's `NOT NULL ... NOT VALID` table constraints, virtual generated
    columns, `NOT ENFORCED` constraints, `ALTER CONSTRAINT ... [NOT] ENFORCED` and
    temporal keys before 18. Only syntax is
    checked: functions (`gen_random_uuid()`, `uuidv7()`) may come from extensions and
    are not flagged.

    ## Why is this bad?
    The linter (and a developer's laptop) may parse newer syntax than production
    runs. The statement fails with a syntax error in the middle of the deploy,
    possibly after earlier statements of a non-transactional migration already ran.

    ## Example
    ```sql
    -- target: PostgreSQL 14
    ALTER TABLE agent.operations
        ADD CONSTRAINT operations_key UNIQUE NULLS NOT DISTINCT (tenant_id, key);
    ```

    ## Use instead
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY operations_key
        ON agent.operations (tenant_id, COALESCE(key, ''));
    ```
    Or raise the target version if every server already runs a newer release.

    ## In an Alembic migration
    Set the target in `[tool.agentddl] pg_version` to the oldest server the migration
    must run on; Alembic's dialect options (`postgresql_nulls_not_distinct=True`,
    `postgresql_include=[...]`) render the same syntax and are checked the same way.

    ## References
    - https://www.postgresql.org/docs/release/
    - https://www.postgresql.org/support/versioning/
    """

    code = "ADL210"
    name = "syntax-not-in-target-version"
    severity = "error"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        missing = [f for f in FEATURES if f.since > context.pg_version]
        if not missing:
            return
        nodes = list(iter_nodes(statement.node))
        kinds = {type(node) for node in nodes}
        for feature in missing:
            if kinds.isdisjoint(feature.kinds):
                continue
            if any(feature.present(node) for node in nodes if isinstance(node, feature.kinds)):
                yield Violation(
                    message=(
                        f"This statement uses {feature.label}, which PostgreSQL "
                        f"{context.pg_version} lacks (added in {feature.since}), so it fails "
                        "on the target server."
                    ),
                    fix=f"{feature.instead} {_UPGRADE}",
                )
