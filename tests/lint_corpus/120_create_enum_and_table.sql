-- corpus: label=safe pg-version=14 runner=psql hazards=enum-add-value,none
BEGIN;
CREATE TYPE shipment_state AS ENUM ('pending', 'in_transit', 'delivered');
ALTER TYPE shipment_state ADD VALUE 'lost';
CREATE TABLE shipment_events (
    id bigserial PRIMARY KEY,
    shipment_id bigint NOT NULL,
    state shipment_state NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
COMMIT;
