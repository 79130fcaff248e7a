# corpus: label=safe pg-version=12 runner=alembic hazards=enum-add-value
"""add 'refunded' to payment_state

Revision ID: a1c0ffee0081
Revises:
Create Date: 2024-06-14 10:00:00.000000
"""
from alembic import op

revision = "a1c0ffee0081"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.get_context().autocommit_block():
        op.execute("ALTER TYPE payment_state ADD VALUE IF NOT EXISTS 'refunded'")


def downgrade() -> None:
    pass
