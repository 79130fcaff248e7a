# corpus: label=safe pg-version=16 runner=alembic hazards=index-build,constraint-validation,lock-timeout
"""add invoice_adjustments

Revision ID: a1c0ffee0149
Revises:
Create Date: 2024-07-01 09:00:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0149"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invoice_adjustments",
        sa.Column("id", sa.BigInteger(), primary_key=True),
        sa.Column("invoice_id", sa.BigInteger(), sa.ForeignKey("invoices.id"), nullable=False),
        sa.Column("amount_minor", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
    )
    op.create_index("ix_invoice_adjustments_invoice_id", "invoice_adjustments", ["invoice_id"])
    op.create_unique_constraint(
        "uq_invoice_adjustments_invoice_reason", "invoice_adjustments", ["invoice_id", "reason"]
    )


def downgrade() -> None:
    op.drop_table("invoice_adjustments")
