-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "idempotency_key" TEXT;
