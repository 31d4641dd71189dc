-- CreateEnum
CREATE TYPE "InvoiceStatus" AS ENUM ('PENDING', 'PAID', 'EXPIRED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "PaymentMethod" AS ENUM ('sbp', 'card');

-- CreateEnum
CREATE TYPE "ApiVersion" AS ENUM ('v1', 'v2');

-- CreateEnum
CREATE TYPE "Currency" AS ENUM ('RUB', 'USD', 'EUR', 'KZT');

-- CreateEnum
CREATE TYPE "KycStatus" AS ENUM ('PENDING', 'VERIFIED', 'REJECTED');

-- CreateEnum
CREATE TYPE "TrustLevel" AS ENUM ('NEW', 'LEVEL_1', 'LEVEL_2', 'LEVEL_3');

-- CreateEnum
CREATE TYPE "RefundStatus" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateTable
CREATE TABLE "invoices" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "api" "ApiVersion" NOT NULL DEFAULT 'v2',
    "invoice_number" TEXT NOT NULL,
    "amount" DECIMAL(20,2) NOT NULL,
    "currency" "Currency" NOT NULL DEFAULT 'RUB',
    "description" TEXT,
    "status" "InvoiceStatus" NOT NULL DEFAULT 'PENDING',
    "payment_method" "PaymentMethod" NOT NULL,
    "customer_email" TEXT,
    "customer_name" TEXT,
    "customer_phone" TEXT,
    "customer_id" UUID,
    "kyc_required" BOOLEAN NOT NULL DEFAULT false,
    "kyc_verified" BOOLEAN NOT NULL DEFAULT false,
    "receipt_required" BOOLEAN NOT NULL DEFAULT false,
    "provider" TEXT NOT NULL,
    "external_order_id" UUID NOT NULL,
    "qr_code" TEXT,
    "qr_payload" TEXT,
    "original_payment_url" TEXT,
    "metadata" JSONB,
    "redirect_url" TEXT,
    "success_url" TEXT,
    "external_id" TEXT,
    "batch_id" UUID,
    "refunded_amount" DECIMAL(20,2) NOT NULL DEFAULT 0,
    "paid_method" "PaymentMethod",
    "payer_bank" TEXT,
    "sbp_transaction_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "paid_at" TIMESTAMPTZ(3),
    "expired_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "full_name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "kyc_status" "KycStatus" NOT NULL DEFAULT 'PENDING',
    "trust_level" "TrustLevel" NOT NULL DEFAULT 'NEW',
    "total_payments" INTEGER NOT NULL DEFAULT 0,
    "total_amount" DECIMAL(20,2) NOT NULL DEFAULT 0,
    "last_payment_at" TIMESTAMPTZ(3),
    "is_blocked" BOOLEAN NOT NULL DEFAULT false,
    "blocked_at" TIMESTAMPTZ(3),
    "blocked_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refunds" (
    "id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "amount" DECIMAL(20,2) NOT NULL,
    "status" "RefundStatus" NOT NULL DEFAULT 'PENDING',
    "reason" TEXT,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "invoices_invoice_number_key" ON "invoices"("invoice_number");

-- CreateIndex
CREATE INDEX "invoices_merchant_id_is_test_created_at_id_idx" ON "invoices"("merchant_id", "is_test", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "invoices_merchant_id_is_test_status_created_at_idx" ON "invoices"("merchant_id", "is_test", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "invoices_merchant_id_is_test_paid_at_idx" ON "invoices"("merchant_id", "is_test", "paid_at");

-- CreateIndex
CREATE INDEX "invoices_status_expires_at_idx" ON "invoices"("status", "expires_at");

-- CreateIndex
CREATE INDEX "invoices_customer_id_idx" ON "invoices"("customer_id");

-- CreateIndex
CREATE INDEX "customers_merchant_id_is_test_created_at_idx" ON "customers"("merchant_id", "is_test", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_is_test_email_key" ON "customers"("merchant_id", "is_test", "email");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_is_test_phone_key" ON "customers"("merchant_id", "is_test", "phone");

-- CreateIndex
CREATE INDEX "refunds_invoice_id_created_at_idx" ON "refunds"("invoice_id", "created_at");

-- CreateIndex
CREATE INDEX "refunds_status_created_at_idx" ON "refunds"("status", "created_at");

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Whatever the code above does: an amount is positive and refunds never exceed it.
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_amount_positive" CHECK ("amount" > 0);
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_refunded_within_amount" CHECK ("refunded_amount" >= 0 AND "refunded_amount" <= "amount");
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_amount_positive" CHECK ("amount" > 0);
