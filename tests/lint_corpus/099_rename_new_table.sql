-- corpus: label=safe pg-version=16 runner=psql hazards=rename
CREATE TABLE tmp_invoice_lines (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id bigint NOT NULL,
    amount_cents bigint NOT NULL
);
ALTER TABLE tmp_invoice_lines RENAME TO invoice_lines;
ALTER TABLE invoice_lines RENAME COLUMN amount_cents TO amount_minor;
CREATE INDEX invoice_lines_invoice_id_idx ON invoice_lines (invoice_id);
