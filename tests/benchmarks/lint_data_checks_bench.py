"""Benchmark (not a test): `python tests/benchmarks/lint_data_checks_bench.py [--rows 1000000]`.

How long each of lint's data checks (ADL214-ADL217, `agentddl lint --schema-from DB`)
takes where it costs most: on clean rows, which the query must read to the end, of one
table of `--rows` rows on an embedded PostgreSQL (`--pg-version`, default the newest
installed). The query is the one lint runs (the finding's fix quotes it), timed three
times by the read-only probe lint uses, under a 60 s statement_timeout instead of its
5 s default, so a slow one shows its time instead of "did not finish".
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from agentddl.checks.db import connect, open_server
from agentddl.checks.db.data_probe import ReadOnlyProbe
from agentddl.checks.db.schema_read import read_schema
from agentddl.checks.lint import LintRequest, run
from agentddl.checks.pg.schema import SchemaFacts
from agentddl.checks.pg.schema_parse import parse_schema

DATA_RULES = ("ADL214", "ADL215", "ADL216", "ADL217")
SETUP = """
CREATE TABLE public.orgs (id bigint PRIMARY KEY);
INSERT INTO public.orgs VALUES (1), (2);
CREATE TABLE public.users (id bigint, email text, nick text, age int, org_id bigint, code text);
INSERT INTO public.users
SELECT g, 'u' || g || '@x', 'n' || (g % 9999), 20 + g % 50, 1 + g % 2, g::text
FROM generate_series(1, %(rows)s) g;
ANALYZE;
"""
STATEMENTS = (
    "CREATE UNIQUE INDEX CONCURRENTLY users_email_key ON public.users (email);",
    "ALTER TABLE public.users ALTER COLUMN nick SET NOT NULL;",
    "ALTER TABLE public.users ADD CONSTRAINT users_age CHECK (age BETWEEN 0 AND 150);",
    "ALTER TABLE public.users ADD CONSTRAINT users_org_fk FOREIGN KEY (org_id) REFERENCES public.orgs;",
    "ALTER TABLE public.users ALTER COLUMN code TYPE integer USING code::integer;",
)


def check_query(statement: str, schema: SchemaFacts, folder: Path) -> str:
    """The SELECT EXISTS (...) lint runs for `statement` (quoted in its warning's fix)."""
    path = folder / "m.sql"
    path.write_text(statement + "\n")
    fixes = [f.fix for f in run(LintRequest([str(path)], schema=schema)).findings if f.code in DATA_RULES]
    found = re.search(r"\((SELECT EXISTS \(.*\))\)", fixes[0]) if fixes else None
    if found is None:
        raise SystemExit(f"no data check for: {statement}")
    return found.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python tests/benchmarks/lint_data_checks_bench.py")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--pg-version", type=int, default=None)
    args = parser.parse_args()
    with open_server(None, version=args.pg_version) as server, server.scratch_database() as dsn:
        with connect(dsn) as conn:
            conn.execute(SETUP.replace("%(rows)s", str(args.rows)))
        schema = parse_schema(read_schema(dsn), "bench")  # read once: the checks only read rows
        print(f"{args.rows:,} rows; each data check's query, three runs (ms):")
        with tempfile.TemporaryDirectory() as folder:
            for statement in STATEMENTS:
                sql = check_query(statement, schema, Path(folder))
                times = []
                for _ in range(3):
                    with ReadOnlyProbe(dsn) as probe:  # a fresh probe: no cached answer
                        answer = probe.exists(sql, statement_ms=60_000, lock_ms=1000)
                    times.append(round(answer.seconds * 1000))
                print(f"  {statement[:72]:74s} violating row: {answer.found}  {times}")


if __name__ == "__main__":
    main()
