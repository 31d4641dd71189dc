-- AlterTable
ALTER TABLE "kyc_sessions" ADD COLUMN     "chosen_language" TEXT;

-- A session whose language is not the default was named so by its merchant: keep following it.
UPDATE "kyc_sessions" SET "chosen_language" = "language" WHERE "language" <> 'ru';
