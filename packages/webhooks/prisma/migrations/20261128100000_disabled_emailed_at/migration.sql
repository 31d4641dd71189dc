-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "disabled_emailed_at" TIMESTAMPTZ(3);

-- Disablings announced before this migration had their e-mail queued then: not sent again.
UPDATE "endpoints" SET "disabled_emailed_at" = "disabled_announced_at" WHERE "disabled_announced_at" IS NOT NULL;
