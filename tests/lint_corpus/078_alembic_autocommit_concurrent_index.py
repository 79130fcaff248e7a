# corpus: label=safe pg-version=15 runner=alembic hazards=index-build,concurrently-in-transaction
"""index orders by placed_at without blocking writes

Revision ID: a1c0ffee0078
Revises:
Create Date: 2024-06-11 12:00:00.000000
"""
from alembic import op

revision = "a1c0ffee0078"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.get_context().autocommit_block():
        op.create_index(
            "ix_orders_placed_at",
            "orders",
            ["placed_at"],
            postgresql_concurrently=True,
            if_not_exists=True,
        )


def downgrade() -> None:
    with op.get_context().autocommit_block():
        op.drop_index("ix_orders_placed_at", table_name="orders", postgresql_concurrently=True)
