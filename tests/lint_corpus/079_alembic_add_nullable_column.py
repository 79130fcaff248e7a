# corpus: label=safe pg-version=16 runner=alembic hazards=add-not-null-column,lock-timeout
"""add orders.gift_message

Revision ID: a1c0ffee0079
Revises:
Create Date: 2024-06-12 09:30:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0079"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("SET LOCAL lock_timeout = '2s'")
    op.add_column("orders", sa.Column("gift_message", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("orders", "gift_message")
