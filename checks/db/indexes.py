"""Indexes and foreign keys as the catalog defines them: the facts behind the index
hygiene rules (verify's ADV101-ADV104) and anything else that judges indexes (audit).

Columns are compared by catalog identity (attnum, operator class, collation, sort
options), expressions and predicates by PostgreSQL's own deparse of them
(`pg_get_indexdef(oid, k, true)`, `pg_get_expr`) on the same table, so two indexes
that PostgreSQL considers the same compare equal however they were written.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from pglast import ast, parse_sql
from pglast.enums import BoolExprType, NullTestType

from agentddl.checks.db.rows import Row
from agentddl.checks.db.sql import not_extension_member

# indnullsnotdistinct exists from 15: read it through to_jsonb so one query serves 14..18.
INDEXES_SQL = f"""
SELECT x.indexrelid AS oid, x.indrelid AS table_oid,
       quote_ident(n.nspname) || '.' || quote_ident(t.relname) AS table_name,
       quote_ident(n.nspname) || '.' || quote_ident(i.relname) AS index_name,
       am.amname AS method, x.indisunique AS is_unique, x.indisprimary AS is_primary,
       x.indisvalid AS is_valid,
       coalesce((to_jsonb(x) ->> 'indnullsnotdistinct')::boolean, false) AS nulls_not_distinct,
       x.indnkeyatts AS key_count, x.indkey::int2[] AS attnums,
       x.indclass::oid[] AS opclasses, x.indcollation::oid[] AS collations,
       x.indoption::int2[] AS options,
       ARRAY(SELECT opc.opcfamily FROM unnest(x.indclass::oid[]) WITH ORDINALITY AS k (opclass, ord)
             JOIN pg_opclass AS opc ON opc.oid = k.opclass ORDER BY k.ord) AS opfamilies,
       ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
             FROM generate_series(1, x.indnatts) AS k) AS column_defs,
       coalesce(pg_get_expr(x.indpred, x.indrelid, true), '') AS predicate,
       (SELECT quote_ident(con.conname) FROM pg_constraint AS con WHERE con.conindid = x.indexrelid
        AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u', 'x')) AS constraint_name,
       EXISTS (SELECT FROM pg_stat_progress_create_index AS p
               WHERE p.index_relid = x.indexrelid) AS being_built,
       EXISTS (SELECT FROM pg_inherits AS inh WHERE inh.inhrelid = x.indexrelid) AS attached,
       pg_get_indexdef(x.indexrelid) AS definition
FROM pg_index AS x
JOIN pg_class AS i ON i.oid = x.indexrelid
JOIN pg_class AS t ON t.oid = x.indrelid
JOIN pg_namespace AS n ON n.oid = t.relnamespace
JOIN pg_am AS am ON am.oid = i.relam
WHERE n.nspname = ANY(%(schemas)s) AND {not_extension_member('t')}
ORDER BY 3, 4
"""

# Foreign keys declared on a table itself (a partition's clone of its parent's FK has
# conparentid <> 0 and is covered when the parent's is). conpfeqop: the operators the
# referential actions use to find referencing rows (PK = FK); eq_families: the B-tree and
# hash operator families in which each is the equality.
FOREIGN_KEYS_SQL = f"""
SELECT con.oid, con.conrelid AS table_oid, quote_ident(con.conname) AS name,
       quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name,
       c.relkind = 'p' AS partitioned, con.conkey::int2[] AS attnums, con.conpfeqop::oid[] AS eq_operators,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
             JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS columns,
       ARRAY(SELECT quote_ident(a.attname) FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
             JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS quoted_columns,
       ARRAY(SELECT a.attcollation FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
             JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS collations,
       ARRAY(SELECT ARRAY(SELECT amop.amopfamily FROM pg_amop AS amop
                          JOIN pg_am AS am ON am.oid = amop.amopmethod
                          WHERE amop.amopopr = k.op
                            AND (am.amname, amop.amopstrategy) IN (('btree', 3), ('hash', 1)))::text
             FROM unnest(con.conpfeqop) WITH ORDINALITY AS k (op, ord) ORDER BY k.ord) AS eq_families
FROM pg_constraint AS con
JOIN pg_class AS c ON c.oid = con.conrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE con.contype = 'f' AND con.conparentid = 0 AND n.nspname = ANY(%(schemas)s)
  AND {not_extension_member('c')}
ORDER BY 4, 3
"""

# The leaf partitions of a partitioned table with a foreign key, and the key's columns in
# each (by name: a partition attached from an existing table may number them otherwise).
LEAF_PARTITIONS_SQL = """
SELECT quote_ident(n.nspname) || '.' || quote_ident(leaf.relname) AS table_name,
       ARRAY(SELECT la.attnum FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
             JOIN pg_attribute AS pa ON pa.attrelid = con.conrelid AND pa.attnum = k.attnum
             JOIN pg_attribute AS la ON la.attrelid = leaf.oid AND la.attname = pa.attname
             ORDER BY k.ord)::int2[] AS attnums
FROM pg_constraint AS con
CROSS JOIN LATERAL pg_partition_tree(con.conrelid) AS tree
JOIN pg_class AS leaf ON leaf.oid = tree.relid
JOIN pg_namespace AS n ON n.oid = leaf.relnamespace
WHERE con.oid = %(fk)s AND tree.isleaf
ORDER BY 1
"""

Keys = tuple[tuple[int, int, int, int, str], ...]  # (attnum, opclass, collation, option, deparse)
_DESC_AND_NULLS_FIRST = 0b11  # pg_index.indoption bits INDOPTION_DESC | INDOPTION_NULLS_FIRST


@dataclass(frozen=True)
class IndexShape:
    """One index, reduced to what decides whether it can stand in for another."""

    name: str
    table: str
    method: str
    unique: bool
    nulls_not_distinct: bool
    valid: bool
    primary: bool
    constraint: str | None  # the PRIMARY KEY, UNIQUE or EXCLUDE constraint it backs
    attached: bool  # a partition's index attached to its parent's (reported on the parent)
    keys: Keys
    include: frozenset[str]  # INCLUDE columns
    predicate: str
    definition: str
    opfamilies: tuple[int, ...]

    @property
    def backs_constraint(self) -> bool:
        return self.constraint is not None

    @property
    def key_names(self) -> frozenset[str]:
        return frozenset(key[4] for key in self.keys)

    @property
    def scan_orders(self) -> tuple[Keys, ...]:
        """The key orders a scan of the index reads: a B-tree is read forwards or
        backwards, so (a DESC NULLS FIRST) reads as (a) too: the same index for every
        query."""
        if self.method != "btree":
            return (self.keys,)
        backwards = tuple((*key[:3], key[3] ^ _DESC_AND_NULLS_FIRST, key[4]) for key in self.keys)
        return (self.keys, backwards)

    def same_definition(self, other: IndexShape) -> bool:
        """Same method, keys (read in either direction), predicate, INCLUDE, uniqueness:
        interchangeable."""
        return self._definition == other._definition and other.keys in self.scan_orders

    @property
    def _definition(self) -> tuple[object, ...]:
        return (self.method, self.unique, self.nulls_not_distinct, self.include, self.predicate)


def index_shape(row: Row) -> IndexShape:
    count = row["key_count"]
    keys = tuple(
        zip(
            row["attnums"][:count],
            row["opclasses"][:count],
            row["collations"][:count],
            row["options"][:count],
            row["column_defs"][:count],
            strict=True,
        )
    )
    return IndexShape(
        name=row["index_name"],
        table=row["table_name"],
        method=row["method"],
        unique=row["is_unique"],
        nulls_not_distinct=row["nulls_not_distinct"],
        valid=row["is_valid"],
        primary=row["is_primary"],
        constraint=row["constraint_name"],
        attached=row["attached"],
        keys=keys,
        include=frozenset(row["column_defs"][count:]),
        predicate=row["predicate"],
        definition=row["definition"],
        opfamilies=tuple(row["opfamilies"][:count]),
    )


def indexes_by_table(rows: Sequence[Row]) -> dict[str, list[IndexShape]]:
    by_table: dict[str, list[IndexShape]] = defaultdict(list)
    for row in rows:
        by_table[row["table_name"]].append(index_shape(row))
    return by_table


def covers_prefix(short: IndexShape, wide: IndexShape) -> bool:
    """`short`'s keys are the leading keys of `wide` (same column or expression, operator
    class, collation and order, read in either direction), on the same predicate, with
    `short`'s INCLUDE columns somewhere in `wide`: every scan `short` serves, `wide`
    serves too."""
    if short.method != "btree" or wide.method != "btree" or short.predicate != wide.predicate:
        return False
    if len(short.keys) > len(wide.keys) or wide.keys[: len(short.keys)] not in short.scan_orders:
        return False
    return short.include <= (wide.key_names | wide.include)


def predicate_only_requires_not_null(predicate: str, columns: Sequence[str]) -> bool:
    """True for no predicate, or one that is only `col IS NOT NULL` (ANDed) on `columns`:
    every row a referential action looks up (col = $1) satisfies it."""
    if not predicate:
        return True
    try:
        statement = parse_sql(f"SELECT 1 WHERE {predicate}")[0].stmt
    except Exception:  # an unparsable deparse is "not provably implied"
        return False
    where = getattr(statement, "whereClause", None)
    if isinstance(where, ast.BoolExpr) and where.boolop == BoolExprType.AND_EXPR:
        terms = list(where.args or ())
    else:
        terms = [where]
    return all(_is_not_null_of(term, columns) for term in terms)


def _is_not_null_of(term: object, columns: Sequence[str]) -> bool:
    if not isinstance(term, ast.NullTest) or term.nulltesttype != NullTestType.IS_NOT_NULL:
        return False
    arg = term.arg
    fields = arg.fields if isinstance(arg, ast.ColumnRef) else None
    if not fields or len(fields) != 1:
        return False
    field = fields[0]
    return isinstance(field, ast.String) and field.sval in columns
