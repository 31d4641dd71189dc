-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "idempotency_key" TEXT;
