-- CreateTable
CREATE TABLE "acquirer_refunds" (
    "refund_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "payment_id" TEXT NOT NULL,
    "amount_kopecks" BIGINT NOT NULL,
    "status" TEXT NOT NULL,
    "status_before" TEXT NOT NULL,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "acquirer_refunds_pkey" PRIMARY KEY ("refund_id")
);

-- CreateIndex
CREATE INDEX "acquirer_refunds_payment_id_idx" ON "acquirer_refunds"("payment_id");
