-- corpus: label=safe pg-version=15 runner=psql hazards=version-syntax
CREATE TABLE api_keys (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    revoked_at timestamptz,
    CONSTRAINT api_keys_one_active UNIQUE NULLS NOT DISTINCT (account_id, revoked_at)
);
