-- corpus: label=unsafe pg-version=15 runner=psql hazards=constraint-validation
-- V42__shipment_carrier.sql
ALTER TABLE shipments ADD COLUMN carrier_id bigint;
UPDATE shipments SET carrier_id = 1 WHERE carrier_id IS NULL AND id < 1000;
ALTER TABLE shipments ADD CONSTRAINT shipments_carrier_fk FOREIGN KEY (carrier_id) REFERENCES carriers (id);
