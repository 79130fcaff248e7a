"""The schema model: what to create, and why each object exists."""

from agentddl.generator.model.derive import derive
from agentddl.generator.model.types import (
    AccessPath,
    Check,
    Column,
    ForeignKey,
    Index,
    Partitioning,
    SchemaModel,
    SqlBlock,
    Table,
    Unique,
)

__all__ = [
    "AccessPath",
    "Check",
    "Column",
    "ForeignKey",
    "Index",
    "Partitioning",
    "SchemaModel",
    "SqlBlock",
    "Table",
    "Unique",
    "derive",
]
