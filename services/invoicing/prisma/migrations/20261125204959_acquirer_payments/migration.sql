-- CreateTable
CREATE TABLE "acquirer_payments" (
    "invoice_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "provider" TEXT NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "amount_kopecks" BIGINT NOT NULL,
    "idempotency_key" TEXT,
    "payment_id" TEXT,
    "payment_url" TEXT,
    "qr_payload" TEXT,
    "status" TEXT NOT NULL,
    "review_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "acquirer_payments_pkey" PRIMARY KEY ("invoice_id")
);

-- CreateTable
CREATE TABLE "acquirer_notifications" (
    "id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "outcome" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "acquirer_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_leases" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_leases_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "acquirer_payments_payment_id_key" ON "acquirer_payments"("payment_id");

-- CreateIndex
CREATE INDEX "acquirer_payments_merchant_id_is_test_idempotency_key_idx" ON "acquirer_payments"("merchant_id", "is_test", "idempotency_key");

-- CreateIndex
CREATE INDEX "acquirer_payments_status_created_at_idx" ON "acquirer_payments"("status", "created_at");

-- CreateIndex
CREATE INDEX "acquirer_notifications_payment_id_received_at_idx" ON "acquirer_notifications"("payment_id", "received_at");
