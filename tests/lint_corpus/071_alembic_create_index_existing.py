# corpus: label=unsafe pg-version=16 runner=alembic hazards=index-build
"""index invoices by due date

Revision ID: a1c0ffee0071
Revises:
Create Date: 2024-03-11 10:22:41.118203
"""
from alembic import op

revision = "a1c0ffee0071"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("SET LOCAL lock_timeout = '2s'")
    op.create_index("ix_invoices_due_date", "invoices", ["due_date"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_invoices_due_date", table_name="invoices")
