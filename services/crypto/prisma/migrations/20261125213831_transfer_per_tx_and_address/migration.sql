-- DropIndex
DROP INDEX "transactions_network_tx_hash_key";

-- CreateIndex
CREATE UNIQUE INDEX "transactions_network_tx_hash_to_address_key" ON "transactions"("network", "tx_hash", "to_address");
