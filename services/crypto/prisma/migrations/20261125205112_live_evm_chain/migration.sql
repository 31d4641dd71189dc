-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "deposit_index" INTEGER;

-- CreateTable
CREATE TABLE "deposit_index_counters" (
    "network" "Network" NOT NULL,
    "next_index" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "deposit_index_counters_pkey" PRIMARY KEY ("network")
);

-- CreateTable
CREATE TABLE "chain_cursors" (
    "network" "Network" NOT NULL,
    "block_number" BIGINT NOT NULL,
    "leader" TEXT,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chain_cursors_pkey" PRIMARY KEY ("network")
);

-- CreateTable
CREATE TABLE "chain_blocks" (
    "network" "Network" NOT NULL,
    "number" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "chain_blocks_pkey" PRIMARY KEY ("network","number")
);

-- CreateTable
CREATE TABLE "payout_wallets" (
    "network" "Network" NOT NULL,
    "address" TEXT NOT NULL,
    "next_nonce" BIGINT NOT NULL,

    CONSTRAINT "payout_wallets_pkey" PRIMARY KEY ("network","address")
);

-- CreateTable
CREATE TABLE "payout_transactions" (
    "tx_hash" TEXT NOT NULL,
    "withdrawal_id" UUID NOT NULL,
    "network" "Network" NOT NULL,
    "from_address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "raw" TEXT NOT NULL,
    "max_fee_per_gas" DECIMAL(78,0) NOT NULL,
    "max_priority_fee_per_gas" DECIMAL(78,0) NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payout_transactions_pkey" PRIMARY KEY ("tx_hash")
);

-- CreateIndex
CREATE INDEX "payout_transactions_withdrawal_id_idx" ON "payout_transactions"("withdrawal_id");

-- CreateIndex
CREATE UNIQUE INDEX "payout_transactions_network_from_address_nonce_max_fee_per__key" ON "payout_transactions"("network", "from_address", "nonce", "max_fee_per_gas");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_network_deposit_index_key" ON "invoices"("network", "deposit_index");
