-- CreateEnum
CREATE TYPE "SweepStatus" AS ENUM ('Signed', 'Confirmed', 'Failed');

-- CreateTable
CREATE TABLE "sweep_transfers" (
    "tx_hash" TEXT NOT NULL,
    "network" "Network" NOT NULL,
    "currency" "Currency" NOT NULL,
    "from_address" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "units" DECIMAL(78,0) NOT NULL,
    "raw" TEXT NOT NULL,
    "status" "SweepStatus" NOT NULL DEFAULT 'Signed',
    "block_number" BIGINT,
    "moved_units" DECIMAL(78,0),
    "reason" TEXT,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "sweep_transfers_pkey" PRIMARY KEY ("tx_hash")
);

-- CreateIndex
CREATE INDEX "sweep_transfers_network_currency_from_address_status_idx" ON "sweep_transfers"("network", "currency", "from_address", "status");

-- CreateIndex
CREATE UNIQUE INDEX "sweep_transfers_network_from_address_nonce_key" ON "sweep_transfers"("network", "from_address", "nonce");
