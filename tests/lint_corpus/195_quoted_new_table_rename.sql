-- corpus: label=safe pg-version=16 runner=psql hazards=rename,index-build
CREATE TABLE "UserProfiles" (
    "id" BIGSERIAL PRIMARY KEY,
    "userId" BIGINT NOT NULL,
    "displayName" TEXT
);
ALTER TABLE "UserProfiles" RENAME COLUMN "displayName" TO "nickname";
CREATE INDEX "UserProfiles_userId_idx" ON "UserProfiles" ("userId");
