-- AlterTable
ALTER TABLE "acquirer_payments" DROP CONSTRAINT "acquirer_payments_pkey",
ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "confirmed_at" TIMESTAMPTZ(3),
ADD COLUMN     "paid_kopecks" BIGINT,
ADD COLUMN     "payer_bank" TEXT,
ADD CONSTRAINT "acquirer_payments_pkey" PRIMARY KEY ("invoice_id", "attempt");

-- AlterTable
ALTER TABLE "receipts" ADD COLUMN     "content_sha256" TEXT;

-- CreateTable
CREATE TABLE "payment_reviews" (
    "id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "reason" TEXT NOT NULL,
    "amount" DECIMAL(20,2) NOT NULL,
    "taken_at" TIMESTAMPTZ(3) NOT NULL,
    "detail" TEXT NOT NULL,
    "payment_id" TEXT,
    "receipt_id" UUID,
    "status" TEXT NOT NULL,
    "refund_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "payment_reviews_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payment_reviews_payment_id_key" ON "payment_reviews"("payment_id");

-- CreateIndex
CREATE UNIQUE INDEX "payment_reviews_receipt_id_key" ON "payment_reviews"("receipt_id");

-- CreateIndex
CREATE INDEX "payment_reviews_invoice_id_created_at_idx" ON "payment_reviews"("invoice_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_reviews_merchant_id_is_test_status_created_at_idx" ON "payment_reviews"("merchant_id", "is_test", "status", "created_at");

-- CreateIndex
CREATE INDEX "receipts_content_sha256_idx" ON "receipts"("content_sha256");
