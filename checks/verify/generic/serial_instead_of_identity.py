"""ADV107 serial-instead-of-identity."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.sql import not_extension_member

# Identity columns on partitioned tables arrived in PostgreSQL 17.
IDENTITY_ON_PARTITIONED_TABLES = 17


class SerialInsteadOfIdentity(Rule):
    """A `serial`-style column: a default `nextval()` of a sequence the column owns.

    ## What it does
    Reports columns that are not identity columns but take their default from a
    sequence owned by the column (what `serial` / `bigserial` create). A default
    from a sequence the column does not own (one sequence shared by several tables:
    a design choice) is not reported. On a partitioned table this is not reported
    when the schema must run on a PostgreSQL older than 17 (the profile's engine
    version, else the server's), which has no identity columns on partitioned tables.

    ## Why is this bad?
    The sequence is a separate object with its own privileges: a role granted INSERT
    but not USAGE on the sequence cannot insert, `CREATE TABLE ... LIKE` and dumps of
    single tables lose the link, and explicit ids written by hand do not advance the
    sequence, so a later default collides. An identity column is part of the table:
    privileges follow it and `GENERATED ALWAYS` refuses hand-written ids.

    ## Example
    ```sql
    CREATE TABLE agent.jobs (id bigserial PRIMARY KEY, kind text NOT NULL);
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.jobs (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, kind text NOT NULL);
    ```
    An existing column converts without a rewrite: drop the default, drop the old
    sequence, then `ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (START WITH <next>)`.

    ## References
    - https://wiki.postgresql.org/wiki/Don%27t_Do_This#Don.27t_use_serial
    - https://www.postgresql.org/docs/current/ddl-identity-columns.html
    """

    code = "ADV107"
    name = "serial-instead-of-identity"
    severity = "warning"
    group = "generic"
    query = f"""
        SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name,
               quote_ident(a.attname) AS column_name, c.relkind::text AS kind,
               quote_ident(sn.nspname) || '.' || quote_ident(s.relname) AS sequence_name
        FROM pg_depend AS owned
        JOIN pg_class AS s ON s.oid = owned.objid AND s.relkind = 'S'
        JOIN pg_namespace AS sn ON sn.oid = s.relnamespace
        JOIN pg_class AS c ON c.oid = owned.refobjid
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = owned.refobjsubid
        WHERE owned.classid = 'pg_class'::regclass AND owned.refclassid = 'pg_class'::regclass
          AND owned.deptype = 'a' AND a.attidentity = '' AND NOT c.relispartition
          AND n.nspname = ANY(%(schemas)s) AND {not_extension_member("c")}
          AND EXISTS (SELECT FROM pg_attrdef AS ad
                      JOIN pg_depend AS uses ON uses.classid = 'pg_attrdef'::regclass
                       AND uses.objid = ad.oid AND uses.refclassid = 'pg_class'::regclass
                       AND uses.refobjid = s.oid
                      WHERE ad.adrelid = c.oid AND ad.adnum = a.attnum)
        ORDER BY 1, 2
    """

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            if row["kind"] == "p" and context.target_version < IDENTITY_ON_PARTITIONED_TABLES:
                continue
            column = f"{row['table_name']}.{row['column_name']}"
            yield self.finding(
                f"{column} takes nextval({row['sequence_name']}): inserting needs USAGE on the "
                "sequence and hand-written ids make later defaults collide.",
                f"ALTER TABLE {row['table_name']} ALTER COLUMN {row['column_name']} DROP DEFAULT, "
                "then ADD GENERATED ALWAYS AS IDENTITY (START WITH the sequence's next value)",
                object=column,
            )
