"""Tenants a check makes for itself in a user's database (prove, bench): new ids of the
profile's tenant type, and names that say who made them (so they can be found and removed)."""

from __future__ import annotations

import random
import uuid
from typing import Any

import psycopg
from psycopg import sql

from agentddl.generator.profile import Profile


def new_tenant_id(profile: Profile, label: str) -> Any:
    """A fresh id of the profile's tenant column type, unlikely to meet a real tenant's."""
    kind = profile.tenancy.type
    if kind == "uuid":
        return uuid.uuid4()
    if kind == "bigint":
        return random.SystemRandom().randrange(2**40, 2**62)
    return f"agentddl-{label}-{uuid.uuid4().hex}"


def create_tenants(
    conn: psycopg.Connection[Any],
    profile: Profile,
    table: sql.Composable,
    count: int,
    label: str,
    prefix: str,
) -> list[Any]:
    """`count` new tenants in `table`, each named `prefix` + a random suffix ([None]: the
    schema is single-tenant, there is no tenant to make)."""
    column = profile.tenancy.column
    if not column:
        return [None]
    tenants = [new_tenant_id(profile, label) for _ in range(count)]
    insert = sql.SQL("INSERT INTO {} ({}, name) VALUES (%s, %s)").format(table, sql.Identifier(column))
    with conn.cursor() as cursor:
        cursor.executemany(insert, [(t, f"{prefix}{uuid.uuid4().hex[:12]}") for t in tenants])
    return tenants
