# corpus: label=unsafe pg-version=14 runner=alembic hazards=drop
"""remove users.nickname

Revision ID: a1c0ffee0074
Revises:
Create Date: 2024-05-20 08:12:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0074"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_column("users", "nickname")


def downgrade() -> None:
    op.add_column("users", sa.Column("nickname", sa.String(length=64), nullable=True))
