# corpus: label=unsafe pg-version=15 runner=alembic hazards=concurrently-in-transaction
"""concurrent index, but still inside the revision's transaction

Revision ID: a1c0ffee0072
Revises:
Create Date: 2024-03-12 09:01:12.000000
"""
from alembic import op

revision = "a1c0ffee0072"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_orders_placed_at",
        "orders",
        ["placed_at"],
        postgresql_concurrently=True,
    )


def downgrade() -> None:
    op.drop_index("ix_orders_placed_at", table_name="orders", postgresql_concurrently=True)
