# corpus: label=unsafe pg-version=15 runner=alembic hazards=rename
"""rename customers.fullname to display_name

Revision ID: a1c0ffee0076
Revises:
Create Date: 2024-06-03 11:00:00.000000
"""
from alembic import op

revision = "a1c0ffee0076"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.alter_column("customers", "fullname", new_column_name="display_name")


def downgrade() -> None:
    op.alter_column("customers", "display_name", new_column_name="fullname")
