-- corpus: label=safe pg-version=16 runner=psql hazards=none
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE SCHEMA IF NOT EXISTS billing;
CREATE TABLE billing.ledger_entries (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id bigint NOT NULL,
    amount_minor bigint NOT NULL,
    posted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_idx ON billing.ledger_entries (account_id, posted_at);
