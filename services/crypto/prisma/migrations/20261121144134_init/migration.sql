-- CreateEnum
CREATE TYPE "Network" AS ENUM ('Tron', 'Ethereum', 'BSC');

-- CreateEnum
CREATE TYPE "Currency" AS ENUM ('USDT_TRC20', 'USDT_ERC20', 'USDC_ERC20', 'USDT_BEP20', 'USDC_BEP20');

-- CreateEnum
CREATE TYPE "InvoiceStatus" AS ENUM ('Pending', 'PartiallyPaid', 'Paid', 'Underpaid', 'Expired');

-- CreateEnum
CREATE TYPE "TransactionStatus" AS ENUM ('Pending', 'Confirmed', 'Failed');

-- CreateEnum
CREATE TYPE "WithdrawalStatus" AS ENUM ('Pending', 'Processing', 'Completed', 'Failed');

-- CreateEnum
CREATE TYPE "LedgerBucket" AS ENUM ('available', 'pending');

-- CreateEnum
CREATE TYPE "LedgerEntryKind" AS ENUM ('deposit_detected', 'deposit_settled', 'deposit', 'fee', 'withdrawal_hold', 'withdrawal_release');

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("scope","key")
);

-- CreateTable
CREATE TABLE "invoices" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "amount" DECIMAL(20,6) NOT NULL,
    "currency" "Currency" NOT NULL,
    "network" "Network" NOT NULL,
    "address" TEXT NOT NULL,
    "description" TEXT,
    "status" "InvoiceStatus" NOT NULL DEFAULT 'Pending',
    "amount_received" DECIMAL(20,6) NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "paid_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transactions" (
    "id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "from_address" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "amount" DECIMAL(20,6) NOT NULL,
    "currency" "Currency" NOT NULL,
    "network" "Network" NOT NULL,
    "status" "TransactionStatus" NOT NULL DEFAULT 'Pending',
    "confirmations" INTEGER NOT NULL DEFAULT 0,
    "required_confirmations" INTEGER NOT NULL,
    "block_number" BIGINT,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "confirmed_at" TIMESTAMPTZ(3),

    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "currency" "Currency" NOT NULL,
    "bucket" "LedgerBucket" NOT NULL,
    "kind" "LedgerEntryKind" NOT NULL,
    "amount" DECIMAL(20,6) NOT NULL,
    "transaction_id" UUID,
    "withdrawal_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "withdrawals" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "withdrawal_number" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "amount" DECIMAL(20,6) NOT NULL,
    "fee" DECIMAL(20,6) NOT NULL,
    "net_amount" DECIMAL(20,6) NOT NULL,
    "currency" "Currency" NOT NULL,
    "network" "Network" NOT NULL,
    "status" "WithdrawalStatus" NOT NULL DEFAULT 'Pending',
    "tx_hash" TEXT,
    "confirmations" INTEGER NOT NULL DEFAULT 0,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "withdrawals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "queue" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_address_key" ON "invoices"("address");

-- CreateIndex
CREATE INDEX "invoices_merchant_id_is_test_created_at_idx" ON "invoices"("merchant_id", "is_test", "created_at");

-- CreateIndex
CREATE INDEX "invoices_status_expires_at_idx" ON "invoices"("status", "expires_at");

-- CreateIndex
CREATE INDEX "transactions_merchant_id_is_test_created_at_idx" ON "transactions"("merchant_id", "is_test", "created_at");

-- CreateIndex
CREATE INDEX "transactions_invoice_id_idx" ON "transactions"("invoice_id");

-- CreateIndex
CREATE INDEX "transactions_status_created_at_idx" ON "transactions"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_network_tx_hash_key" ON "transactions"("network", "tx_hash");

-- CreateIndex
CREATE INDEX "ledger_entries_merchant_id_is_test_currency_idx" ON "ledger_entries"("merchant_id", "is_test", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_kind_transaction_id_key" ON "ledger_entries"("kind", "transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_kind_withdrawal_id_key" ON "ledger_entries"("kind", "withdrawal_id");

-- CreateIndex
CREATE UNIQUE INDEX "withdrawals_withdrawal_number_key" ON "withdrawals"("withdrawal_number");

-- CreateIndex
CREATE INDEX "withdrawals_merchant_id_is_test_created_at_idx" ON "withdrawals"("merchant_id", "is_test", "created_at");

-- CreateIndex
CREATE INDEX "withdrawals_merchant_id_is_test_currency_created_at_idx" ON "withdrawals"("merchant_id", "is_test", "currency", "created_at");

-- CreateIndex
CREATE INDEX "withdrawals_status_idx" ON "withdrawals"("status");

-- CreateIndex
CREATE INDEX "outbox_published_at_id_idx" ON "outbox"("published_at", "id");

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
