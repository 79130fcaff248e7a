"""What a write does to its tables, and the read it is made of (pglast AST).

In place (`audit --dsn`) the audit never runs or even plans a write: parsing an UPDATE
takes ROW EXCLUSIVE on its table, a SELECT ... FOR UPDATE takes ROW SHARE. It plans the
write's *read part* instead, a SELECT that finds the same rows the same way:

    UPDATE t SET ... FROM u WHERE cond RETURNING r   ->  SELECT 1 FROM t, u WHERE cond
    DELETE FROM t USING u WHERE cond                 ->  SELECT 1 FROM t, u WHERE cond
    INSERT INTO t SELECT ...                         ->  the SELECT
    MERGE INTO t USING s ON cond                     ->  SELECT 1 FROM s LEFT JOIN t ON cond
    SELECT ... FOR UPDATE SKIP LOCKED                ->  the SELECT, without its locking clause

at every level (a data-modifying CTE becomes `SELECT <its RETURNING list> FROM ...`).
An INSERT ... VALUES reads nothing but its unique and foreign key checks: no read part.
The tables a statement deletes from or re-keys tell which foreign keys' actions it fires.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from agentddl.checks.audit.placeholders import named, numbered, placeholder_names
from agentddl.checks.audit.shape import nodes

_WRITES = (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)


@dataclass(frozen=True)
class WriteFacts:
    writes: bool  # the statement (or one of its CTEs) writes
    deletes: tuple[str, ...] = ()  # tables it deletes rows from
    updates: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (table, columns it SETs)


def write_facts(statement: str) -> WriteFacts:
    """What a psycopg-style statement writes (nothing, when it does not parse)."""
    try:
        tree = pglast.parse_sql(numbered(statement))
    except pglast.parser.ParseError:
        return WriteFacts(False)
    found: list[Any] = [n for n in nodes(tree[0].stmt) if isinstance(n, _WRITES)]
    deletes = [_relname(n) for n in found if isinstance(n, ast.DeleteStmt)]
    updates = [
        (_relname(n), tuple(str(t.name) for t in n.targetList or () if t.name))
        for n in found
        if isinstance(n, ast.UpdateStmt)
    ]
    for merge in (n for n in found if isinstance(n, ast.MergeStmt)):
        for when in merge.mergeWhenClauses or ():
            if when.commandType == enums.CmdType.CMD_DELETE:
                deletes.append(_relname(merge))
            elif when.commandType == enums.CmdType.CMD_UPDATE:
                columns = tuple(str(t.name) for t in when.targetList or () if t.name)
                updates.append((_relname(merge), columns))
    return WriteFacts(bool(found) or _locks_rows(tree), tuple(dict.fromkeys(deletes)), tuple(updates))


def _relname(statement: Any) -> str:
    return str(statement.relation.relname)


def _locks_rows(tree: Any) -> bool:
    """SELECT ... FOR UPDATE/SHARE: it writes row locks (and takes ROW SHARE)."""
    return any(isinstance(n, ast.SelectStmt) and n.lockingClause for n in nodes(tree))


def read_part(statement: str) -> str | None:
    """The SELECT that reads what a psycopg-style statement reads, psycopg-style with the
    same parameter names (None: it reads nothing, or is not a statement we can rewrite)."""
    names = placeholder_names(statement)
    try:
        tree = pglast.parse_sql(numbered(statement))
    except pglast.parser.ParseError:
        return None
    select = _read(tree[0].stmt, top=True)
    if select is None:
        return None
    for node in nodes(select):
        if isinstance(node, ast.SelectStmt):
            node.lockingClause = None
    return named(RawStream()(select), names)


def _read(statement: Any, top: bool) -> ast.SelectStmt | None:
    select: ast.SelectStmt | None
    if isinstance(statement, ast.SelectStmt):
        _read_ctes(statement)
        return statement
    if isinstance(statement, ast.UpdateStmt):
        sources = [statement.relation, *(statement.fromClause or ())]
        select = _select(sources, statement.whereClause, statement, top)
    elif isinstance(statement, ast.DeleteStmt):
        sources = [statement.relation, *(statement.usingClause or ())]
        select = _select(sources, statement.whereClause, statement, top)
    elif isinstance(statement, ast.InsertStmt):
        select = _insert_read(statement, top)
    elif isinstance(statement, ast.MergeStmt):
        join = ast.JoinExpr(
            jointype=enums.JoinType.JOIN_LEFT,
            larg=statement.sourceRelation,
            rarg=statement.relation,
            quals=statement.joinCondition,
            isNatural=False,
        )
        select = _select([join], None, statement, top)
    else:
        return None
    if select is not None:
        select.withClause = _merged_with(statement.withClause, select.withClause)
        _read_ctes(select)
    return select


def _insert_read(statement: ast.InsertStmt, top: bool) -> ast.SelectStmt | None:
    source = statement.selectStmt
    returns = statement.returningClause is not None
    if isinstance(source, ast.SelectStmt) and not source.valuesLists and (top or not returns):
        return source
    if top:
        return None  # INSERT ... VALUES: only its unique and FK checks read
    # a CTE's INSERT ... RETURNING: the same columns, no rows (its source is not read)
    where = ast.A_Const(val=ast.Boolean(False), isnull=False)
    return _select([statement.relation], where, statement, top=False)


def _select(sources: list[Any], where: Any, write: Any, top: bool) -> ast.SelectStmt:
    returning = getattr(write, "returningClause", None)
    targets = list(returning.exprs) if returning is not None and not top else []
    if not targets:
        targets = [ast.ResTarget(val=ast.A_Const(val=ast.Integer(1), isnull=False))]
    return ast.SelectStmt(
        targetList=targets,
        fromClause=sources,
        whereClause=where,
        limitOption=enums.LimitOption.LIMIT_OPTION_DEFAULT,
        op=enums.SetOperation.SETOP_NONE,
        all=False,
        groupDistinct=False,
    )


def _merged_with(outer: Any, inner: Any) -> Any:
    if outer is None or inner is None:
        return outer or inner
    return ast.WithClause(ctes=[*outer.ctes, *inner.ctes], recursive=outer.recursive or inner.recursive)


def _read_ctes(select: ast.SelectStmt) -> None:
    """Every data-modifying CTE becomes its read part (a CTE whose write reads nothing:
    its RETURNING columns over no rows)."""
    with_clause: Any = select.withClause
    for cte in with_clause.ctes if with_clause is not None else ():
        if isinstance(cte.ctequery, _WRITES):
            cte.ctequery = _read(cte.ctequery, top=False)
