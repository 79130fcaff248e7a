"""The SQL a `DO $$ ... $$` block runs, so rules see a CREATE INDEX hidden inside one.

pglast parses PL/pgSQL through a function wrapper; we collect, in order, the static
statements (`PLpgSQL_stmt_execsql`), `PERFORM` expressions (for `set_config`) and
`EXECUTE` strings: constant ones (`'...' || '...'`) and `format('<constant template>',
...)`, whose `%I`/`%s` arguments we cannot evaluate become the identifier `"{expression}"`
(so `format('CREATE TABLE %I ...', part)` then `format('CREATE INDEX ... ON %I', part)`
index the table the block created) and `%L` ones the literal `'{expression}'`. Other
dynamic SQL built at run time is invisible.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pglast
from pglast import ast
from pglast.stream import RawStream

from agentddl.checks.pg.ast_helpers import const_value, function_name


def do_block_sql(node: ast.DoStmt) -> list[str]:
    """The SQL statements a DO block executes, in order ([] if not PL/pgSQL or unparseable)."""
    body, language = _do_args(node)
    if body is None or language != "plpgsql":
        return []
    tag = _dollar_tag(body)
    wrapper = f"CREATE FUNCTION agentddl_do() RETURNS void LANGUAGE plpgsql AS {tag}{body}{tag}"
    try:
        tree = pglast.parse_plpgsql(wrapper)
    except pglast.parser.ParseError:
        return []  # the server reports a broken body when the DO runs; we cannot see into it
    return list(_collect(tree))


def _do_args(node: ast.DoStmt) -> tuple[str | None, str]:
    body, language = None, "plpgsql"
    for arg in node.args or ():
        value = const_value(arg.arg)
        if arg.defname == "as" and isinstance(value, str):
            body = value
        elif arg.defname == "language" and isinstance(value, str):
            language = value.lower()
    return body, language


def _dollar_tag(body: str) -> str:
    tag, counter = "$agentddl$", 0
    while tag in body:
        counter += 1
        tag = f"$agentddl{counter}$"
    return tag


def _collect(tree: Any) -> Iterator[str]:
    if isinstance(tree, list):
        for item in tree:
            yield from _collect(item)
        return
    if not isinstance(tree, dict):
        return
    for key, value in tree.items():
        if key == "PLpgSQL_stmt_execsql":
            yield _query(value.get("sqlstmt"))
        elif key == "PLpgSQL_stmt_perform":
            yield _query(value.get("expr"))
        elif key == "PLpgSQL_stmt_dynexecute":
            literal = _string_literal(_query(value.get("query")))
            if literal:
                yield literal
        else:
            yield from _collect(value)


def _query(expr: Any) -> str:
    if isinstance(expr, dict):
        return str(expr.get("PLpgSQL_expr", {}).get("query", ""))
    return ""


def _string_literal(expression: str) -> str | None:
    """The value of `'...'` or `'...' || '...'` (constant strings only), else None."""
    try:
        (raw,) = pglast.parse_sql(f"SELECT {expression}")
    except (pglast.parser.ParseError, ValueError):
        return None
    select = raw.stmt
    if not isinstance(select, ast.SelectStmt) or not select.targetList:
        return None
    return _concat_value(select.targetList[0].val)


def _concat_value(node: Any) -> str | None:
    value = const_value(node)
    if isinstance(value, str):
        return value
    if isinstance(node, ast.A_Expr) and [n.sval for n in node.name or ()] == ["||"]:
        left, right = _concat_value(node.lexpr), _concat_value(node.rexpr)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.FuncCall) and function_name(node) == "format" and node.args:
        template = const_value(node.args[0])
        return _format(template, list(node.args[1:])) if isinstance(template, str) else None
    return None


_FORMAT_SPEC = re.compile(r"%(?:(\d+)\$)?(-?\d*)([sIL%])")


def _format(template: str, args: list[Any]) -> str | None:
    """What `format(template, args...)` yields, with unknown arguments as placeholders;
    None for a template using `*` widths (the arguments shift unpredictably)."""
    if "%*" in template or "%-*" in template:
        return None
    pieces, position, consumed = [], 0, 0
    for match in _FORMAT_SPEC.finditer(template):
        pieces.append(template[position : match.start()])
        position = match.end()
        number, kind = match.group(1), match.group(3)
        if kind == "%":
            pieces.append("%")
            continue
        index = int(number) - 1 if number else consumed
        consumed = index + 1
        if index >= len(args):
            return None  # the server raises "too few arguments for format()"
        pieces.append(_format_argument(args[index], kind))
    pieces.append(template[position:])
    return "".join(pieces)


def _format_argument(arg: Any, kind: str) -> str:
    value = const_value(arg)
    if value is not None:
        text = str(value)
        if kind == "I":
            return '"' + text.replace('"', '""') + '"'
        return "'" + text.replace("'", "''") + "'" if kind == "L" else text
    expression = RawStream()(arg)
    if kind == "L":
        return "'{" + expression.replace("'", "") + "}'"
    return '"{' + expression.replace('"', "") + '}"'
