"""The database layer: every server, connection, scratch database and catalog read.

- `open_server(dsn, version=, prefer=)`: a real PostgreSQL server (the given one, an
  embedded one from local binaries, or a testcontainers one), stopped on exit if started.
- `PostgresServer.scratch_database()`: a throwaway database, dropped on any exit.
- `connect(dsn, read_only=, settings=)`: the one way to open a connection.
- `DatabaseError` / `error_line`: the one wording of connection and SQL failures.
- `catalog`: the one catalog snapshot and diff (`declared`: a snapshot against the
  model; `indexes`: the index facts hygiene rules judge); `install`: put a profile's
  schema.sql in a database (its Alembic revision: `checks.alembic.online`); `runtime`: the
  named queries as production runs them;
  `seed`: synthetic rows at volume; `tenants`: tenants prove and bench make for themselves.
- `dump`: the newest pg_dump and a read-only schema dump; `clone`, `sample`: a user's
  database copied into a scratch one (schema, FK-consistent rows, statistics);
  `schema_read`: a live schema as SQL, and production's table sizes, for the linter;
  `alembic_version`: the Alembic revisions a database is at, for the linter;
  `data_probe`: the read-only query that judges lint's data-dependent statements;
  `catalog_clone`: one schema rebuilt from its catalog (no pg_dump, any server 14-18)
  with a sample of rows, where audit asks its what-if questions.
- `process`: a throwaway local server process (temp dir, free port, unprivileged user,
  stopped at exit), the base of `embedded` (PostgreSQL), `redis_server` and `pgbouncer`.
- `redis_server`: a real Redis for the hot projection (given, or a throwaway
  redis-server); `hot_runtime`: the generated redis/hot_state.py, loaded.
- `pgbouncer`: a transaction-mode PgBouncer in front of a server.
- `requirements`: what a server must have for a profile (its engine version, its schema).
"""

from agentddl.checks.db.connect import DatabaseError, connect, database_error, describe_dsn, error_line
from agentddl.checks.db.installations import find_installations
from agentddl.checks.db.provision import open_server
from agentddl.checks.db.server import PostgresServer

__all__ = [
    "DatabaseError",
    "PostgresServer",
    "connect",
    "database_error",
    "describe_dsn",
    "error_line",
    "find_installations",
    "open_server",
]
