"""Foreign keys' actions as part of the workload: what a DELETE or key UPDATE fires.

Deleting a parent row, or changing its referenced key, makes PostgreSQL find the
referencing rows of every foreign key that points at it (`ON DELETE CASCADE`, `SET
NULL`, `SET DEFAULT`, `NO ACTION`, `RESTRICT` alike): one lookup of the child by the
key's columns per parent row, inside the statement. Each such lookup is planned as
`SELECT 1 FROM child WHERE (key columns) = (values)` with values sampled from the
child; when the workload fires it and it reads a large child unindexed, the statement
that fires it fails (ADA115), with what the lookup costs. On the profile's schema the
model's own lookups (`<fk> (cascade)`, planned with its samples) stand for them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import psycopg

from agentddl.checks.audit.judge import Thresholds
from agentddl.checks.audit.paths import AuditPath, fk_lookup_name
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.indexes import predicate_only_requires_not_null
from agentddl.checks.db.sql import not_extension_member
from agentddl.generator.model.blocks import quote

_ACTIONS = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
_FOREIGN_KEYS = f"""
SELECT con.conname, c.relname AS child, p.relname AS parent,
    ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
          JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord),
    ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k (attnum, ord)
          JOIN pg_attribute AS a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord),
    con.confdeltype, con.confupdtype
FROM pg_constraint AS con
JOIN pg_class AS c ON c.oid = con.conrelid
JOIN pg_class AS p ON p.oid = con.confrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_namespace AS pn ON pn.oid = p.relnamespace
WHERE con.contype = 'f' AND con.conparentid = 0 AND n.nspname = %(schema)s AND pn.nspname = %(schema)s
  AND {not_extension_member("c")}
ORDER BY 1
"""


@dataclass(frozen=True)
class ForeignKey:
    name: str
    table: str  # the referencing (child) table
    columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]
    on_delete: str  # CASCADE, SET NULL, ...
    on_update: str

    @property
    def lookup_name(self) -> str:
        return f"{self.name} (lookup)"


def read_foreign_keys(conn: psycopg.Connection[Any], schema: str) -> list[ForeignKey]:
    rows = conn.execute(_FOREIGN_KEYS, {"schema": schema}).fetchall()
    return [
        ForeignKey(name, child, tuple(cols), parent, tuple(pcols), _ACTIONS[d], _ACTIONS[u])
        for name, child, parent, cols, pcols, d, u in rows
    ]


def lookup_path(schema: str, fk: ForeignKey) -> AuditPath:
    """The referencing rows' lookup a parent's DELETE or key UPDATE makes."""
    where = " AND ".join(f"x.{quote(c)} = %({_param(n)})s" for n, c in enumerate(fk.columns))
    statement = f"SELECT 1 FROM {quote(schema)}.{quote(fk.table)} AS x WHERE {where}"
    return AuditPath(
        name=fk.lookup_name,
        sql=statement,
        params=tuple(_param(n) for n in range(len(fk.columns))),
        table=fk.table,
        declared=None,
        kind="constraint",
        origin="foreign key",  # not the model's "fk" paths: values sampled from its columns
    )


def _param(n: int) -> str:
    return f"key{n + 1}"


def fired(path: AuditPath, fks: list[ForeignKey]) -> list[tuple[ForeignKey, str]]:
    """(foreign key, "ON DELETE x" / "ON UPDATE x") for each action the path fires."""
    found = [(fk, f"ON DELETE {fk.on_delete}") for fk in fks if fk.parent in path.deletes]
    for table, columns in path.updates:
        found += [
            (fk, f"ON UPDATE {fk.on_update}")
            for fk in fks
            if fk.parent == table and set(columns) & set(fk.parent_columns)
        ]
    return found


@dataclass(frozen=True)
class FiredAction:
    """A foreign key's action a path fires, with the plan of the lookup it makes."""

    firing: PathResult  # the DELETE or key UPDATE (its plan's `changed`: the parent rows it changes)
    fk: ForeignKey
    action: str  # "ON DELETE x" or "ON UPDATE x"
    lookup: PathResult  # the referencing rows' lookup (one parent row's), judged
    catalog: Catalog
    limits: Thresholds


class FkActionRule(AuditRule):
    """A verdict on a foreign key's action a path fires, from the plan of its lookup."""

    def judge_action(self, fired: FiredAction) -> Finding | None:
        raise NotImplementedError


def with_fk_actions(
    results: list[PathResult],
    fks: list[ForeignKey],
    catalog: Catalog,
    limits: Thresholds,
    lookups: dict[str, PathResult] | None = None,
) -> list[PathResult]:
    """Each firing path with every FK action rule's findings on the lookups it fires
    (`lookups`: by `ForeignKey.lookup_name`; default: the results' own lookups)."""
    if lookups is None:
        lookups = {r.path.name: r for r in results if r.path.kind == "constraint"}
    rules = rules_of(FkActionRule)
    judged = []
    for result in results:
        extra = [
            found
            for fk, action in fired(result.path, fks)
            if (lookup := lookups.get(fk.lookup_name)) is not None
            for rule in rules
            if (found := rule.judge_action(FiredAction(result, fk, action, lookup, catalog, limits)))
        ]
        added = result.path.located(tuple(extra))
        judged.append(replace(result, findings=result.findings + added) if extra else result)
    return judged


def with_model_fk_actions(
    conn: psycopg.Connection[Any], results: list[PathResult], catalog: Catalog, limits: Thresholds
) -> list[PathResult]:
    """On the profile's schema: the actions judged on the model's own lookups (each
    foreign key's `cascade` path), planned with the model's samples."""
    fks = read_foreign_keys(conn, catalog.schema)
    planned = {r.path.name: r for r in results if r.path.origin == "fk"}
    lookups = {
        fk.lookup_name: planned[fk_lookup_name(fk.name)] for fk in fks if fk_lookup_name(fk.name) in planned
    }
    return with_fk_actions(results, fks, catalog, limits, lookups)


def covering(fk: ForeignKey, index: str, catalog: Catalog) -> bool:
    """A B-tree of the child leading with the key's columns (any order), whole or partial
    on `col IS NOT NULL` only: the lookup can use it."""
    key = catalog.index_columns.get(index, ())[: len(fk.columns)]
    return (
        catalog.index_table.get(index) == fk.table
        and catalog.methods.get(index, "btree") == "btree"
        and set(key) == set(fk.columns)
        and predicate_only_requires_not_null(catalog.predicates.get(index, ""), fk.columns)
    )
