-- corpus: label=safe pg-version=16 runner=psql hazards=set-not-null,type-change
CREATE TABLE webhooks (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url text,
    secret text
);
ALTER TABLE webhooks ALTER COLUMN url SET NOT NULL;
ALTER TABLE webhooks ALTER COLUMN id TYPE bigint;
ALTER TABLE webhooks ADD COLUMN attempts integer NOT NULL;
