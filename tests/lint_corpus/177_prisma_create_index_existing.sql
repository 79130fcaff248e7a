-- corpus: label=unsafe pg-version=15 runner=psql hazards=index-build
-- CreateIndex
CREATE INDEX "User_lastLoginAt_idx" ON "User"("lastLoginAt");
