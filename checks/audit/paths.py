"""The access paths an audit plans: the model's named queries, its foreign keys' lookups,
and users' own named-query files.

Every generated query in queries.sql is one path, expecting the index its AccessPath
declares. A foreign key is a workload too: deleting a parent makes PostgreSQL look up
the children by the FK columns (`<fk> (cascade)`), and an index that exists only for a
FK's parent-side check gets that lookup as its path (`<fk> (check)`), so every declared
index has a path that needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from agentddl.checks.audit.writes import write_facts
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.runtime import load_queries, production_role
from agentddl.generator.model import ForeignKey, Index, SchemaModel, Table
from agentddl.generator.model.blocks import quote

Kind = str  # read | write | claim | maintenance | health | constraint | user | stats


@dataclass(frozen=True)
class CallStats:
    """What pg_stat_statements counted for a statement (--from-stats)."""

    calls: int
    total_ms: float
    mean_ms: float
    rows: int


@dataclass(frozen=True)
class AuditPath:
    name: str
    sql: str  # one statement, psycopg %(name)s placeholders
    params: tuple[str, ...]
    table: str | None  # the table the path is about (None: unknown)
    declared: str | None  # the index that should serve it (None: no expectation)
    kind: Kind
    origin: str  # "queries.sql", "fk" (the model's), "foreign key" (in place), "file.sql:LINE", ...
    role: str | None = None  # production role it runs as
    examples: dict[str, object] = field(default_factory=dict)  # given values (user files)
    example_exprs: dict[str, str] = field(default_factory=dict)  # SQL expressions (user files)
    example_at: dict[str, str] = field(default_factory=dict)  # param -> "file:line:column"
    plannable: bool = True  # False: catalog work (no plan to judge)
    writes: bool = False  # an INSERT, UPDATE, DELETE or MERGE (or a CTE that is one)
    written: str | None = None  # in place: the write as given, when `sql` is its read part
    stats: CallStats | None = None  # pg_stat_statements' counters (--from-stats)
    deletes: tuple[str, ...] = ()  # tables it deletes rows from (their FKs' actions fire)
    updates: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (table, columns it SETs)
    file: str | None = None  # a query file's path, where the statement is written ...
    line: int | None = None  # ... and the statement's first line in it (1-based)
    budget_ms: float | None = None  # its `-- budget:` line (overrides --max-path-ms)

    def located(self, findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
        """The findings at the statement's file:line, for a query from a file (text,
        SARIF and GitHub annotations then point at it)."""
        if self.file is None:
            return findings
        return tuple(replace(f, file=self.file, line=self.line, column=1) for f in findings)


def model_paths(model: SchemaModel) -> list[AuditPath]:
    """The generated queries (in access-path order), then the FK lookups."""
    queries = load_queries(model)
    paths = []
    for access in model.access_paths:
        query = getattr(queries, access.name)
        facts = write_facts(query.sql)
        paths.append(
            AuditPath(
                name=access.name,
                sql=query.sql,
                params=tuple(query.parameters or ()),
                table=access.table,
                declared=access.index,
                kind=access.kind,
                origin="queries.sql",
                role=production_role(model.profile, access.name),
                plannable=access.index is not None,
                writes=facts.writes,
                deletes=facts.deletes,
                updates=facts.updates,
            )
        )
    return paths + fk_paths(model)


def fk_paths(model: SchemaModel) -> list[AuditPath]:
    """One cascade lookup per FK; a parent-side check for each FK a non-PK index serves."""
    paths = []
    for table in model.tables:
        for fk in table.foreign_keys:
            index = _serving(model, fk.name, table.name, fk.columns)
            paths.append(_lookup(model, fk, table.name, fk.columns, index, "cascade"))
            parent_index = _serving(model, fk.name, fk.ref_table, fk.ref_columns)
            if parent_index is not None:
                paths.append(_lookup(model, fk, fk.ref_table, fk.ref_columns, parent_index, "check"))
    return paths


def _serving(model: SchemaModel, fk_name: str, table: str, columns: tuple[str, ...]) -> str | None:
    """The declared index of `table` serving the FK by leading with `columns`."""
    found: list[Index] = [
        i
        for i in model.table(table).indexes
        if fk_name in i.serves and set(i.key_columns[: len(columns)]) == set(columns)
    ]
    return found[0].name if found else None


def _lookup(
    model: SchemaModel, fk: ForeignKey, table: str, columns: tuple[str, ...], index: str | None, side: str
) -> AuditPath:
    """SELECT 1 FROM table WHERE columns = params: the lookup the FK trigger makes."""
    t: Table = model.table(table)
    names = tuple(_param(model, c) for c in columns)
    # identifiers are the profile's validated names, quoted; values are placeholders
    where = " AND ".join(f"x.{quote(c)} = %({p})s" for c, p in zip(columns, names, strict=True))
    lock = " FOR KEY SHARE OF x" if side == "check" else ""
    statement = f"SELECT 1 FROM {quote(model.schema)}.{quote(t.name)} AS x WHERE {where}{lock}"
    return AuditPath(
        name=fk_lookup_name(fk.name, side),
        sql=statement,
        params=names,
        table=t.name,
        declared=index,
        kind="constraint",
        origin="fk",
        writes=side == "check",  # FOR KEY SHARE locks the rows it finds
    )


def fk_lookup_name(fk: str, side: str = "cascade") -> str:
    """The model's path of a foreign key's lookup: `cascade` (the referencing rows a
    parent's DELETE finds) or `check` (the parent a child's write locks)."""
    return f"{fk} ({side})"


def _param(model: SchemaModel, column: str) -> str:
    """Example parameter names for FK columns: the run a child row points at."""
    aliases = {"parent_run_id": "run_id", "created_at": "run_created_at"}
    return aliases.get(column, column) if column != model.profile.tenancy.column else column
