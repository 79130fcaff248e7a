# corpus: label=safe pg-version=16 runner=alembic hazards=constraint-validation,validate-same-transaction
"""FK on payments.invoice_id without a long write-blocking scan

Revision ID: a1c0ffee0080
Revises:
Create Date: 2024-06-13 15:45:00.000000
"""
from alembic import op

revision = "a1c0ffee0080"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("SET LOCAL lock_timeout = '2s'")
    op.create_foreign_key(
        "fk_payments_invoice_id_invoices",
        "payments",
        "invoices",
        ["invoice_id"],
        ["id"],
        postgresql_not_valid=True,
    )
    with op.get_context().autocommit_block():
        op.execute(
            "ALTER TABLE payments VALIDATE CONSTRAINT fk_payments_invoice_id_invoices"
        )


def downgrade() -> None:
    op.drop_constraint("fk_payments_invoice_id_invoices", "payments", type_="foreignkey")
