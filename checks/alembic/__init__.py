"""Alembic integration: revisions read with Alembic's own offline mode, and run with its
commands. It imports no database driver (`agentddl lint` reads revisions through it);
`online` leaves the connection to agentddl's env.py.

- `environment`: which folders are Alembic environments, their revision files, and each
  revision's identity (`revision`, `down_revision`) read without importing it.
- `staging`: copies of the revisions in a throwaway script directory, stubs for missing
  parents, and the env.py that runs them.
- `offline`: what `alembic upgrade --sql` prints for each revision (`offline_sql`).
- `offline_env`: the body of that env.py: offline configuration and the statement hooks.
- `markers`: the `-- agentddl-source: LINE` mark before each statement, and reading it back.
- `ignores`: `# agentddl: ignore[...]` comments of a revision, forwarded as SQL comments.
- `hints`: what `op.alter_column(existing_type=...)` knows, as a comment on its statement.
- `online`: a generated revision applied to a real database with `alembic.command`.
- `graph`: the revisions' graph (heads, parents) read with Alembic's `ScriptDirectory`.
- `traced`: revisions upgraded with `alembic.command` on connections a hook opens, every
  statement they issue handed to the hook where it runs (`agentddl trace`).

This file imports nothing, so importing one module does not import the others.
"""
