-- corpus: label=safe pg-version=12 runner=psql hazards=enum-add-value
ALTER TYPE order_status ADD VALUE IF NOT EXISTS 'on_hold' AFTER 'pending';
