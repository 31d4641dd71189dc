-- AlterTable
ALTER TABLE "events" ADD COLUMN     "seq" BIGSERIAL NOT NULL;
