"""ADV113 security-definer-search-path."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding


class SecurityDefinerSearchPath(Rule):
    """A `SECURITY DEFINER` function or procedure without a pinned `search_path`.

    ## What it does
    Reports functions and procedures of the verified schemas that run with their
    owner's rights (`SECURITY DEFINER`) but take the caller's `search_path`: no
    `SET search_path = ...` clause among their settings (`pg_proc.proconfig`).
    Functions an extension installs are its maintainer's business and left out.

    ## Why is this bad?
    Every name the function does not qualify (a table, a function, an operator) is
    looked up on the caller's `search_path`, and `pg_temp`, which any session can
    write to, is searched first unless the path names it. A caller who may run the
    function can shadow what it calls with an object of their own and have it run
    with the owner's rights: often the schema's owner, sometimes a superuser (the
    role that happened to apply the migration). PostgreSQL's documentation calls this
    out for every `SECURITY DEFINER` function.

    ## Example
    ```sql
    CREATE FUNCTION agent.maintain_partitions() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER AS $$
    BEGIN
        PERFORM create_partitions();   -- whose create_partitions? the caller decides
    END $$;
    ```

    ## Use instead
    Pin the path on the function (trusted schemas only, `pg_temp` last) and qualify
    what it uses; better still, drop `SECURITY DEFINER` where the callers can be
    given the rights themselves:
    ```sql
    ALTER FUNCTION agent.maintain_partitions() SET search_path = pg_catalog, pg_temp;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createfunction.html#SQL-CREATEFUNCTION-SECURITY
    - https://www.postgresql.org/docs/current/perm-functions.html
    """

    code = "ADV113"
    name = "security-definer-search-path"
    severity = "error"
    group = "generic"
    query = """
        SELECT quote_ident(n.nspname) || '.' || quote_ident(p.proname)
                   || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS routine,
               CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END AS kind,
               quote_ident(r.rolname) AS owner, r.rolsuper AS superuser
        FROM pg_proc AS p
        JOIN pg_namespace AS n ON n.oid = p.pronamespace
        JOIN pg_roles AS r ON r.oid = p.proowner
        WHERE n.nspname = ANY(%(schemas)s) AND p.prosecdef
          AND NOT EXISTS (SELECT FROM unnest(coalesce(p.proconfig, '{}')) AS setting
                          WHERE setting LIKE 'search\\_path=%%')
          AND NOT EXISTS (SELECT FROM pg_depend AS member WHERE member.classid = 'pg_proc'::regclass
                          AND member.objid = p.oid AND member.deptype = 'e')
        ORDER BY 1
    """

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            who = f"{row['owner']}{' (a superuser)' if row['superuser'] else ''}"
            yield self.finding(
                f"{row['routine']} runs with the rights of {who} but looks names up on the caller's "
                "search_path: a caller can shadow what it calls (pg_temp comes first) and run "
                "their own code with those rights.",
                f"ALTER {row['kind']} {row['routine']} SET search_path = pg_catalog, pg_temp "
                "(and schema-qualify what it uses)",
                object=row["routine"],
            )
