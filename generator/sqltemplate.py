"""Long SQL bodies (PL/pgSQL functions and procedures) live in generator/templates/*.sql,
shipped as package data, and are filled in here with string.Template. Placeholders are
written @name (PL/pgSQL needs "$"); every one must be given a value, and values are the
model's own validated names and numbers, never raw input."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template


class SqlTemplate(Template):
    delimiter = "@"


@cache
def _template(name: str) -> SqlTemplate:
    text = files("agentddl.generator.templates").joinpath(f"{name}.sql").read_text(encoding="utf-8")
    return SqlTemplate(text.removesuffix("\n"))  # a file ends with a newline; the block does not


def render_sql(template: str, **values: object) -> str:
    """templates/<template>.sql with its @placeholders filled (KeyError when one is missing)."""
    return _template(template).substitute(values)
