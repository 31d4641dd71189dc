-- CreateEnum
CREATE TYPE "ReceiptStatus" AS ENUM ('PENDING', 'APPROVED', 'REJECTED');

-- CreateTable
CREATE TABLE "receipts" (
    "id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "status" "ReceiptStatus" NOT NULL DEFAULT 'PENDING',
    "storage_key" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "extracted_amount" DECIMAL(20,2),
    "extracted_date" DATE,
    "confidence" DOUBLE PRECISION,
    "bank" TEXT,
    "payment_type" TEXT,
    "rejection_reason" TEXT,
    "verified_amount" DECIMAL(20,2),
    "verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "receipts_merchant_id_is_test_created_at_id_idx" ON "receipts"("merchant_id", "is_test", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "receipts_invoice_id_created_at_idx" ON "receipts"("invoice_id", "created_at");

-- CreateIndex
CREATE INDEX "receipts_status_created_at_idx" ON "receipts"("status", "created_at");

-- AddForeignKey
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
