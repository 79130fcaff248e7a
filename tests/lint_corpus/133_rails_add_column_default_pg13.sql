-- corpus: label=safe pg-version=13 runner=psql hazards=rewriting-default,add-not-null-column,lock-timeout
-- add_column :users, :role, :string, null: false, default: "member"
ALTER TABLE "users" ADD "role" character varying DEFAULT 'member' NOT NULL;
