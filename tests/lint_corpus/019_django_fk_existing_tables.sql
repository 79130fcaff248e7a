-- corpus: label=unsafe pg-version=14 runner=psql hazards=constraint-validation
BEGIN;
--
-- Alter field author on comment
--
ALTER TABLE "blog_comment" ADD CONSTRAINT "blog_comment_author_id_0b5e7f2c_fk_auth_user_id" FOREIGN KEY ("author_id") REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED;
COMMIT;
