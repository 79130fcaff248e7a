-- corpus: label=safe pg-version=16 runner=psql hazards=backfill,none
\set ON_ERROR_STOP on
CREATE TABLE currencies (
    code char(3) PRIMARY KEY,
    minor_units smallint NOT NULL,
    name text NOT NULL
);
COPY currencies (code, minor_units, name) FROM stdin;
EUR	2	Euro
JPY	0	Japanese yen
USD	2	US dollar
\.
CREATE INDEX currencies_name_idx ON currencies (name);
