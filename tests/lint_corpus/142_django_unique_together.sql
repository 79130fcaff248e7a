-- corpus: label=unsafe pg-version=15 runner=psql hazards=unique-inline
BEGIN;
--
-- Alter unique_together for membership (1 constraint(s))
--
ALTER TABLE "teams_membership" ADD CONSTRAINT "teams_membership_team_id_user_id_5a8c2b7e_uniq" UNIQUE ("team_id", "user_id");
COMMIT;
