-- corpus: label=safe pg-version=16 runner=psql hazards=rewriting-default,add-not-null-column,lock-timeout
-- AlterTable
ALTER TABLE "User" ADD COLUMN     "isAdmin" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "bio" TEXT;
