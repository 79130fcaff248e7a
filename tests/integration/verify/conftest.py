"""Shared by the verify integration tests: `profile_major`, the majors the profile tests
run on (15 and 18 among the tested majors, else the newest tested), and `install`, a
profile's schema installed in a scratch database with its reference."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from profiles import with_version

from agentddl.checks.catalog_rules.types import Group
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.install import install_schema
from agentddl.checks.verify import make_context, run_rules
from agentddl.checks.verify.reference import Reference, read_reference
from agentddl.checks.verify.rules import rules_in_group
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import Profile

PROFILE_MAJORS = (15, 18)
ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "profile_major" in metafunc.fixturenames:
        # The root conftest knows the tested majors; conftest modules can't import each
        # other (they are all named `conftest`), so ask pytest for it.
        root = metafunc.config.pluginmanager.get_plugin(str(ROOT_CONFTEST))
        majors = root.tested_majors()
        chosen = [m for m in majors if m in PROFILE_MAJORS] or list(majors[-1:])
        ids = [f"pg{m}" if m is not None else "dsn" for m in chosen]
        metafunc.parametrize("profile_major", chosen, ids=ids, scope="module")


@dataclass
class Installed:
    """A profile's schema installed in a scratch database, its reference, a connection."""

    model: SchemaModel
    reference: Reference
    connection: psycopg.Connection[Any]

    def findings(self, schema: str | None = None, group: Group | None = None) -> list[Finding]:
        """Findings of every rule (or of one group) on the installed schema (or `schema`)."""
        context = make_context(self.connection, [schema] if schema else None, self.model, self.reference)
        return run_rules(self.connection, context, rules_in_group(group) if group else None)

    def after(
        self, statement: str, group: Group | None = "profile", schema: str | None = None
    ) -> list[Finding]:
        """Findings once `statement` ran, in a transaction that is then rolled back."""
        with self.connection.transaction(force_rollback=True):
            self.connection.execute(statement.encode())
            return self.findings(schema, group)


@pytest.fixture(scope="module")
def install(pg_servers: Any) -> Iterator[Any]:
    """install(profile, major) -> Installed (the profile at the server's major); databases
    dropped after the module."""
    opened: list[tuple[Any, str, psycopg.Connection[Any]]] = []

    def make(profile: Profile, major: int | None) -> Installed:
        server = pg_servers.get(major)
        model = derive(with_version(profile, server.version))  # the profile tuned for this major
        dsn = server.create_database()
        connection = psycopg.connect(dsn, autocommit=True)
        opened.append((server, dsn, connection))
        install_schema(connection, model)
        return Installed(model, read_reference(connection, model, server.version), connection)

    yield make
    for server, dsn, connection in opened:
        connection.close()
        server.drop_database(dsn)
