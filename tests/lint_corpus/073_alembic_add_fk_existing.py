# corpus: label=unsafe pg-version=16 runner=alembic hazards=constraint-validation
"""link payments to invoices

Revision ID: a1c0ffee0073
Revises:
Create Date: 2024-04-02 14:55:03.550000
"""
import sqlalchemy as sa
from alembic import op

revision = "a1c0ffee0073"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("payments", sa.Column("invoice_id", sa.BigInteger(), nullable=True))
    op.create_foreign_key(
        "fk_payments_invoice_id_invoices", "payments", "invoices", ["invoice_id"], ["id"]
    )


def downgrade() -> None:
    op.drop_constraint("fk_payments_invoice_id_invoices", "payments", type_="foreignkey")
    op.drop_column("payments", "invoice_id")
