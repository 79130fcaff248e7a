-- corpus: label=safe pg-version=16 runner=psql hazards=enum-add-value
ALTER TYPE notification_channel ADD VALUE IF NOT EXISTS 'sms';
ALTER TYPE notification_channel ADD VALUE IF NOT EXISTS 'push' BEFORE 'email';
