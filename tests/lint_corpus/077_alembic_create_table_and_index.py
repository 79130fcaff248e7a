# corpus: label=safe pg-version=16 runner=alembic hazards=index-build
"""add coupons

Revision ID: a1c0ffee0077
Revises:
Create Date: 2024-06-10 10:10:10.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0077"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "coupons",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("percent_off", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("percent_off BETWEEN 1 AND 100", name="ck_coupons_percent_off"),
    )
    op.create_index("ix_coupons_code", "coupons", ["code"], unique=True)
    op.create_index("ix_coupons_expires_at", "coupons", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_coupons_expires_at", table_name="coupons")
    op.drop_index("ix_coupons_code", table_name="coupons")
    op.drop_table("coupons")
