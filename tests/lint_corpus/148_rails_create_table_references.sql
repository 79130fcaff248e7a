-- corpus: label=safe pg-version=15 runner=psql hazards=constraint-validation,lock-timeout
-- create_table :api_tokens do |t| t.references :user, foreign_key: true ... end
CREATE TABLE "api_tokens" ("id" bigserial primary key, "user_id" bigint NOT NULL, "token_digest" character varying NOT NULL, "last_used_at" timestamp(6), "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL, CONSTRAINT "fk_rails_f16b5e0447"
FOREIGN KEY ("user_id")
  REFERENCES "users" ("id")
);
CREATE INDEX "index_api_tokens_on_user_id" ON "api_tokens" ("user_id");
CREATE UNIQUE INDEX "index_api_tokens_on_token_digest" ON "api_tokens" ("token_digest");
