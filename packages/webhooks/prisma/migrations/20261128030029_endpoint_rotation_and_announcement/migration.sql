-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "disabled_announced_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_secret_enc" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3);

-- Endpoints disabled before this migration were shown in the console already: nothing to announce.
UPDATE "endpoints" SET "disabled_announced_at" = "disabled_at" WHERE "disabled_at" IS NOT NULL;
