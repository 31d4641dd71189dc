-- One index space for every EVM network (the same key is the same address on each), seeded
-- past every index already given, so no new invoice gets an address another one has.
DELETE FROM "deposit_index_counters";

-- AlterTable
ALTER TABLE "deposit_index_counters" DROP CONSTRAINT "deposit_index_counters_pkey",
DROP COLUMN "network",
ADD COLUMN     "scheme" TEXT NOT NULL,
ADD CONSTRAINT "deposit_index_counters_pkey" PRIMARY KEY ("scheme");

INSERT INTO "deposit_index_counters" ("scheme", "next_index")
SELECT 'evm', COALESCE(MAX("deposit_index") + 1, 0) FROM "invoices" WHERE "deposit_index" IS NOT NULL;
