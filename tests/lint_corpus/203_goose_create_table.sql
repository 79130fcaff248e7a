-- corpus: label=safe pg-version=16 runner=psql hazards=drop,index-build
-- +goose Up
CREATE TABLE device_tokens (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL,
    token text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_tokens_user_id_idx ON device_tokens (user_id);

-- +goose Down
DROP INDEX device_tokens_user_id_idx;
DROP TABLE device_tokens;
