# corpus: label=unsafe pg-version=16 runner=alembic hazards=type-change
"""widen counters to bigint

Revision ID: a1c0ffee0075
Revises:
Create Date: 2024-06-01 17:40:10.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0075"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("SET LOCAL lock_timeout = '2s'")
    op.alter_column(
        "page_counters",
        "hits",
        existing_type=sa.Integer(),
        type_=sa.BigInteger(),
        existing_nullable=False,
    )


def downgrade() -> None:
    op.alter_column("page_counters", "hits", existing_type=sa.BigInteger(), type_=sa.Integer())
