-- corpus: label=safe pg-version=16 runner=psql hazards=backfill
CREATE TABLE countries (
    code char(2) PRIMARY KEY,
    name text NOT NULL
);
INSERT INTO countries (code, name) VALUES
    ('DE', 'Germany'),
    ('FR', 'France'),
    ('JP', 'Japan'),
    ('US', 'United States');
UPDATE countries SET name = 'United States of America' WHERE code = 'US';
