-- CreateEnum
CREATE TYPE "BatchStatus" AS ENUM ('processing', 'completed');

-- CreateEnum
CREATE TYPE "EmailStatus" AS ENUM ('pending', 'sent', 'failed');

-- AlterTable
ALTER TABLE "invoices" ALTER COLUMN "metadata" SET DATA TYPE JSON;

-- CreateTable
CREATE TABLE "merchant_settings" (
    "merchant_id" UUID NOT NULL,
    "enabled_currencies" "Currency"[] DEFAULT ARRAY['RUB']::"Currency"[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchant_settings_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "status" "BatchStatus" NOT NULL DEFAULT 'processing',
    "total" INTEGER NOT NULL,
    "valid" INTEGER NOT NULL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL,
    "send_emails" BOOLEAN NOT NULL,
    "errors" JSONB NOT NULL,
    "pending_rows" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_emails" (
    "invoice_id" UUID NOT NULL,
    "batch_id" UUID NOT NULL,
    "to_address" TEXT NOT NULL,
    "status" "EmailStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "invoice_emails_pkey" PRIMARY KEY ("invoice_id")
);

-- CreateIndex
CREATE INDEX "batches_merchant_id_is_test_created_at_idx" ON "batches"("merchant_id", "is_test", "created_at" DESC);

-- CreateIndex
CREATE INDEX "invoice_emails_batch_id_status_idx" ON "invoice_emails"("batch_id", "status");

-- CreateIndex
CREATE INDEX "invoices_batch_id_idx" ON "invoices"("batch_id");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_merchant_id_is_test_external_id_key" ON "invoices"("merchant_id", "is_test", "external_id");

-- AddForeignKey
ALTER TABLE "invoice_emails" ADD CONSTRAINT "invoice_emails_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
