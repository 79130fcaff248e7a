-- corpus: label=safe pg-version=16 runner=psql hazards=index-build
SET search_path TO billing, public;
CREATE TABLE credit_notes (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id bigint NOT NULL,
    amount_minor bigint NOT NULL
);
CREATE INDEX credit_notes_invoice_id_idx ON billing.credit_notes (invoice_id);
