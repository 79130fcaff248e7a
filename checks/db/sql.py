"""SQL fragments that catalog queries of several modules share."""

from __future__ import annotations


def not_extension_member(relation: str) -> str:
    """A WHERE term: the pg_class row aliased `relation` is no extension's member (an
    extension's tables, sequences and their indexes are its maintainer's business, not
    the schema's: `ALTER EXTENSION ... ADD TABLE` or a `CREATE EXTENSION ... SCHEMA s`
    puts them among the user's own)."""
    return (
        f"NOT EXISTS (SELECT FROM pg_depend AS member WHERE member.classid = 'pg_class'::regclass"
        f" AND member.objid = {relation}.oid AND member.deptype = 'e')"
    )
