"""Users' own named-query files: aiosql `-- name:` blocks, example values optional.

    -- name: runs_of_kind(tenant_id, kind)
    -- Runs of one kind, newest first.
    -- index: runs_kind_idx                      (optional: the index you expect)
    -- example: tenant_id = @hot_tenant          (optional: a value sampled from agentddl's schema)
    -- example: kind = 'research'                (optional: a SQL expression the server evaluates)
    -- budget: 50ms                              (optional: its time budget; overrides --max-path-ms)
    SELECT ... WHERE r.tenant_id = :tenant_id AND r.kind = :kind
    ORDER BY r.created_at DESC LIMIT 20;

    -- name: fetch_job                           (no parameter list: aiosql's other form)
    SELECT ... WHERE j.queue = :queue ...

Every block is one SELECT, INSERT, UPDATE, DELETE or MERGE: on a scratch database the
audit runs it under EXPLAIN ANALYZE in a transaction it rolls back; in place (--dsn) it
plans the read part of a write and runs only reads. A second statement, DDL or
transaction control (a COMMIT would end that transaction) is refused at load.

A parameter without an `-- example:` line gets a value sampled from the data the
audit runs on (`sampling`). An example is `@name` (one of SAMPLE_NAMES, read from an
agentddl schema: the biggest tenant, a running run, ...) or one SQL expression
(`now() - interval '1 hour'`, `(SELECT max(event_id) FROM agent.events)`), evaluated
inside a rolled-back transaction. A budget is a number of milliseconds (`50ms`) or
seconds (`1.5s`): the path fails when its measured execution takes longer. Mistakes are
reported as file:line:column.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import aiosql
import pglast
from pglast import ast

from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import placeholder_names, psycopg_style
from agentddl.checks.audit.shape import nodes
from agentddl.checks.audit.writes import write_facts
from agentddl.generator.errors import AgentDDLError

SAMPLE_NAMES = (
    "hot_tenant",
    "run_tenant",
    "run_id",
    "run_created_at",
    "parent_run_id",
    "fencing_token",
    "after_id",
    "idempotency_key",
    "message_id",
    "window_start",
    "window_end",
)
_NAME = re.compile(r"^--\s*name:")
# aiosql's spec: a name, an optional parameter list, an optional operation suffix
_NAME_SPEC = re.compile(r"^([A-Za-z_][\w-]*)\s*(?:\(([^()]*)\))?\s*(?:<!|\*!|[$^!#])?\s*$")
_PARAM_LIST = re.compile(r"^\s*(?:[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*$")
_EXAMPLE = re.compile(r"^(--\s*example:\s*)(.*)$")
_INDEX = re.compile(r"^--\s*index:\s*([A-Za-z_]\w*)")
_BUDGET = re.compile(r"^(--\s*budget:\s*)(.*)$")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(ms|s)$")
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)\s*=\s*(.+?)\s*$")
_AIOSQL_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")  # :name, not a ::cast
_STATEMENTS = (ast.SelectStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)


@dataclass
class _Block:
    name: str
    line: int  # 1-based line of `-- name:`
    text: str  # the `-- name:` line itself
    index: str | None
    examples: dict[str, tuple[str, int, int]]  # param -> (value, line, column of the param)
    declared: tuple[str, ...] | None = None  # the parameter list, when the block has one
    budget_ms: float | None = None  # its `-- budget:` line
    first: int = 0  # the line its statement starts on


def load_query_file(path: Path) -> list[AuditPath]:
    """The file's named queries as audit paths, each with its example values."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise AgentDDLError(f"{path}: cannot read: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise AgentDDLError(f"{path}: not UTF-8 text (byte {error.start})") from error
    blocks = _blocks(path, text)
    if not blocks:
        raise AgentDDLError(f"{path}:1:1: no '-- name:' query blocks (aiosql format)")
    lines = text.splitlines()
    ends = [b.line - 1 for b in blocks[1:]] + [len(lines)]
    tables = [
        _check_statement(path, block, lines[block.line : end])
        for block, end in zip(blocks, ends, strict=True)
    ]
    for block, end in zip(blocks, ends, strict=True):
        _check_declared(path, block, lines[block.line : end])
        block.first = _first_line(block, lines[block.line : end])
    queries = _aiosql(path, text, blocks, ends, lines)
    return [
        _path(path, block, getattr(queries, block.name.replace("-", "_")), table)
        for block, table in zip(blocks, tables, strict=True)
    ]


def _aiosql(path: Path, text: str, blocks: list[_Block], ends: list[int], lines: list[str]) -> object:
    """aiosql's reading of the file (`:name` -> `%(name)s`); a block it refuses is
    reported at the block's line in our words, never as aiosql's message."""
    aiosql_log = logging.getLogger("aiosql")
    level = aiosql_log.level
    aiosql_log.setLevel(logging.ERROR)  # its "may not be a select" hint: checked above
    try:
        return aiosql.from_str(text, "psycopg", mandatory_parameters=False)
    except Exception as error:  # aiosql raises its own SQLParseException and others
        for block, end in zip(blocks, ends, strict=True):
            try:
                aiosql.from_str("\n".join(lines[block.line - 1 : end]), "psycopg", mandatory_parameters=False)
            except Exception:
                reason = str(error).split(" at <unknown>")[0]
                raise AgentDDLError(
                    f"{path}:{block.line}:1: query {block.name!r}: aiosql cannot read this block ({reason})"
                ) from error
        raise AgentDDLError(f"{path}:1:1: not an aiosql query file: {error}") from error
    finally:
        aiosql_log.setLevel(level)


def _name_block(path: Path, line: str, number: int, blocks: list[_Block]) -> _Block:
    """The `-- name:` line read as aiosql does: `name`, `name(a, b)`, with an optional
    operation suffix (`!`, `<!`, `*!`, `^`, `$`, `#`)."""
    spec_at = line.index(":", line.index("name")) + 1
    spec = line[spec_at:].strip()
    column = spec_at + len(line[spec_at:]) - len(line[spec_at:].lstrip()) + 1
    match = _NAME_SPEC.match(spec)
    if match is None:
        raise AgentDDLError(
            f"{path}:{number}:{column}: expected '-- name: NAME' or '-- name: NAME(PARAM, ...)' "
            f"(an identifier, then an optional parameter list), got {spec!r}"
        )
    name, params = match.group(1), match.group(2)
    if params is not None and not _PARAM_LIST.match(params):
        at = column + spec.index("(") + 1
        raise AgentDDLError(f"{path}:{number}:{at}: query {name!r}: expected parameters NAME, NAME, ...")
    if any(b.name.replace("-", "_") == name.replace("-", "_") for b in blocks):
        raise AgentDDLError(f"{path}:{number}:{column}: a second query named {name!r}")
    declared = tuple(p.strip() for p in params.split(",") if p.strip()) if params is not None else None
    return _Block(name, number, line, None, {}, declared)


def _blocks(path: Path, text: str) -> list[_Block]:
    blocks: list[_Block] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if _NAME.match(stripped):
            blocks.append(_name_block(path, line, number, blocks))
        elif blocks and (match := _INDEX.match(stripped)):
            blocks[-1].index = match.group(1)
        elif match := _BUDGET.match(stripped):
            column = line.index(match.group(1)) + len(match.group(1)) + 1
            _add_budget(path, blocks, match.group(2).strip(), number, column)
        elif match := _EXAMPLE.match(stripped):
            if not blocks:
                raise AgentDDLError(f"{path}:{number}:1: '-- example:' before any '-- name:' block")
            column = line.index(match.group(1)) + len(match.group(1)) + 1
            _add_example(path, blocks[-1], match.group(2), number, column)
    return blocks


def _check_statement(path: Path, block: _Block, body: list[str]) -> str | None:
    """The block's SQL (the lines after `-- name:`) parses as one statement the audit may
    run and roll back. Parameters become $n of the same width, so a parse error's offset
    is the file's column. Returns the first table it reads or writes (for reporting and
    suggestions): the parser's first relation, so `extract(epoch FROM now() - x)` is not
    a table."""
    text = "\n".join(body)
    if "\x00" in text:  # the parser would stop at it; PostgreSQL refuses it
        where = _position(path, block.line + 1, text, text.index("\x00"))
        raise AgentDDLError(f"{where}: query {block.name!r} contains a NUL byte")
    plain = _AIOSQL_PARAM.sub(lambda m: "$1".ljust(len(m.group(0))), text)
    try:
        statements = pglast.parse_sql(plain)
    except pglast.parser.ParseError as error:
        where = _position(path, block.line + 1, text, _error_offset(error, len(text)))
        raise AgentDDLError(f"{where}: query {block.name!r}: {error.args[0]}") from error
    if not statements:
        raise AgentDDLError(f"{path}:{block.line}:1: query {block.name!r} has no SQL statement")
    for number, raw in enumerate(statements):
        where = _position(path, block.line + 1, text, raw.stmt_location or len(text) - len(text.lstrip()))
        if number > 0:
            raise AgentDDLError(f"{where}: query {block.name!r}: one statement per '-- name:' block")
        if not isinstance(raw.stmt, _STATEMENTS) or getattr(raw.stmt, "intoClause", None):
            raise AgentDDLError(
                f"{where}: query {block.name!r} is {type(raw.stmt).__name__}: the audit plans SELECT,"
                " INSERT, UPDATE, DELETE or MERGE (run in a rolled-back transaction), not DDL or"
                " transaction control"
            )
    found = next((n for n in nodes(statements) if isinstance(n, ast.RangeVar)), None)
    return str(found.relname) if found is not None else None


def _check_declared(path: Path, block: _Block, body: list[str]) -> None:
    """With a parameter list, every :name the SQL uses is in it (aiosql's rule)."""
    if block.declared is None:
        return
    sql_lines = [line for line in body if not line.lstrip().startswith("--")]
    for param in dict.fromkeys(_AIOSQL_PARAM.findall("\n".join(sql_lines))):
        if param not in block.declared:
            raise AgentDDLError(
                f"{path}:{block.line}:1: query {block.name!r} uses :{param}, which its parameter "
                f"list ({', '.join(block.declared)}) does not declare"
            )


def _error_offset(error: pglast.parser.ParseError, end: int) -> int:
    """pglast's ParseError(message, 0-based offset); the offset is None at end of input."""
    offset = error.args[1] if len(error.args) > 1 else None
    return int(offset) if offset is not None else end


def _position(path: Path, first_line: int, text: str, offset: int) -> str:
    """file:line:column of a 0-based offset into text, which starts at first_line."""
    line_start = text.rfind("\n", 0, offset) + 1
    return f"{path}:{first_line + text.count(chr(10), 0, offset)}:{offset - line_start + 1}"


def _add_example(path: Path, block: _Block, body: str, line: int, column: int) -> None:
    match = _ASSIGN.match(body)
    if match is None:
        raise AgentDDLError(
            f"{path}:{line}:{column}: expected '-- example: PARAM = VALUE'"
            " (VALUE: @sample or a SQL expression)"
        )
    param, value = match.groups()
    value_column = column + body.index(value, len(param))
    if value.startswith("@"):
        if value[1:] not in SAMPLE_NAMES:
            raise AgentDDLError(
                f"{path}:{line}:{value_column}: unknown sample {value!r}; one of: "
                + ", ".join("@" + n for n in SAMPLE_NAMES)
            )
    else:
        _check_expression(path, value, line, value_column)
    block.examples[param] = (value, line, column)


def _add_budget(path: Path, blocks: list[_Block], value: str, line: int, column: int) -> None:
    """`-- budget: 50ms` (or `1.5s`): the block's time budget, in milliseconds."""
    if not blocks:
        raise AgentDDLError(f"{path}:{line}:1: '-- budget:' before any '-- name:' block")
    match = _DURATION.match(value)
    if match is None or float(match.group(1)) <= 0:
        raise AgentDDLError(
            f"{path}:{line}:{column}: expected '-- budget: N ms' or '-- budget: N s' (N > 0), got {value!r}"
        )
    if blocks[-1].budget_ms is not None:
        raise AgentDDLError(f"{path}:{line}:1: query {blocks[-1].name!r} has a second '-- budget:' line")
    blocks[-1].budget_ms = float(match.group(1)) * (1000.0 if match.group(2) == "s" else 1.0)


def _first_line(block: _Block, body: list[str]) -> int:
    """The line the block's statement starts on (its first line that is SQL, not a
    comment): where a finding about it points."""
    for offset, text in enumerate(body):
        if text.strip() and not text.lstrip().startswith("--"):
            return block.line + 1 + offset
    return block.line


def _check_expression(path: Path, value: str, line: int, column: int) -> None:
    """One SQL expression, nothing else (no second statement, no FROM of its own)."""
    prefix = "SELECT "
    try:
        statements = pglast.parse_sql(prefix + value)
    except pglast.parser.ParseError as error:
        at = column + max(0, _error_offset(error, len(prefix + value)) - len(prefix))
        raise AgentDDLError(f"{path}:{line}:{at}: example value is not a SQL expression: {error}") from error
    select = statements[0].stmt if len(statements) == 1 else None
    if (
        not isinstance(select, pglast.ast.SelectStmt)
        or select.fromClause
        or len(select.targetList or ()) != 1
    ):
        raise AgentDDLError(f"{path}:{line}:{column}: example value must be one SQL expression")


def _path(path: Path, block: _Block, query: object, table: str | None) -> AuditPath:
    statement = psycopg_style(query.sql)  # type: ignore[attr-defined]
    used = placeholder_names(statement)
    params = tuple(p for p in (block.declared or ()) if p in used) + tuple(
        p for p in used if p not in (block.declared or ())
    )
    for param, (_, line, column) in block.examples.items():
        if param not in params:
            raise AgentDDLError(f"{path}:{line}:{column}: query {block.name!r} has no parameter {param!r}")
    facts = write_facts(statement)
    return AuditPath(
        name=block.name,
        sql=statement,
        params=params,
        table=table,
        declared=block.index,
        kind="user",
        origin=f"{path}:{block.line}",
        example_exprs={p: v for p, (v, _, _) in block.examples.items()},
        example_at={p: f"{path}:{line}:{column}" for p, (_, line, column) in block.examples.items()},
        writes=facts.writes,
        deletes=facts.deletes,
        updates=facts.updates,
        file=str(path),
        line=block.first,
        budget_ms=block.budget_ms,
    )
