-- Ledger entries become a chain per account (merchant, mode, currency, bucket): `seq` is the
-- entry's position and `balance_after` the account's balance once it is applied, so the
-- balance is read from the newest entry instead of summing the whole history.

-- AlterTable: added nullable, filled from the existing history, then required.
ALTER TABLE "ledger_entries" ADD COLUMN     "balance_after" DECIMAL(20,6),
ADD COLUMN     "seq" BIGINT;

UPDATE "ledger_entries" e
   SET "seq" = c."seq", "balance_after" = c."balance_after"
  FROM (SELECT "id",
               row_number() OVER w AS "seq",
               SUM("amount") OVER w AS "balance_after"
          FROM "ledger_entries"
        WINDOW w AS (PARTITION BY "merchant_id", "is_test", "currency", "bucket" ORDER BY "id")) c
 WHERE e."id" = c."id";

ALTER TABLE "ledger_entries" ALTER COLUMN "balance_after" SET NOT NULL,
ALTER COLUMN "seq" SET NOT NULL;

-- No account may ever go below zero, whatever the code above it does.
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_balance_after_non_negative" CHECK ("balance_after" >= 0);

-- DropIndex: the unique chain index below starts with the same columns.
DROP INDEX "ledger_entries_merchant_id_is_test_currency_idx";

-- CreateIndex: one entry per chain position, so two writers can never build on the same head.
CREATE UNIQUE INDEX "ledger_entries_merchant_id_is_test_currency_bucket_seq_key" ON "ledger_entries"("merchant_id", "is_test", "currency", "bucket", "seq");

-- The balance lock: every change to one balance (merchant, mode, currency) takes it first, so
-- writers of one balance queue instead of failing on the chain position.
CREATE FUNCTION "lock_balance"(p_merchant uuid, p_is_test boolean, p_currency "Currency") RETURNS void
LANGUAGE sql VOLATILE AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(
    'balance:' || p_merchant || ':' || (CASE WHEN p_is_test THEN 'test' ELSE 'live' END) || ':' || p_currency, 0));
$$;

-- The newest entry of one account: its chain position and the balance it left. No row for an
-- account that has none. The one definition of "the head", for the writer and the readers.
CREATE FUNCTION "ledger_head"(p_merchant uuid, p_is_test boolean, p_currency "Currency", p_bucket "LedgerBucket")
RETURNS TABLE (seq bigint, balance_after numeric)
LANGUAGE sql STABLE AS $$
  SELECT e.seq, e.balance_after FROM "ledger_entries" e
   WHERE e.merchant_id = p_merchant AND e.is_test = p_is_test AND e.currency = p_currency AND e.bucket = p_bucket
   ORDER BY e.seq DESC LIMIT 1;
$$;

-- The one writer of the ledger. Appends postings to one balance's accounts, in order: each
-- entry takes the next position after its account's head and the running balance from it.
-- If any entry would take its bucket below zero, nothing is written and the first such
-- bucket is returned with the balance it held (the CHECK above would refuse the row anyway).
-- The caller holds lock_balance.
CREATE FUNCTION "ledger_post"(
  p_merchant uuid, p_is_test boolean, p_currency "Currency",
  p_buckets "LedgerBucket"[], p_kinds "LedgerEntryKind"[], p_amounts numeric[],
  p_transaction_ids uuid[], p_withdrawal_ids uuid[]
) RETURNS TABLE (short_bucket "LedgerBucket", short_balance numeric)
LANGUAGE sql VOLATILE AS $$
  WITH entry AS (
    SELECT p.bucket, p.kind, p.amount, p.transaction_id, p.withdrawal_id,
           COALESCE(h.balance_after, 0) AS before,
           COALESCE(h.seq, 0) + row_number() OVER account AS seq,
           COALESCE(h.balance_after, 0) + SUM(p.amount) OVER account AS balance_after
      FROM unnest(p_buckets, p_kinds, p_amounts, p_transaction_ids, p_withdrawal_ids)
           WITH ORDINALITY AS p(bucket, kind, amount, transaction_id, withdrawal_id, n)
      LEFT JOIN LATERAL ledger_head(p_merchant, p_is_test, p_currency, p.bucket) h ON true
    WINDOW account AS (PARTITION BY p.bucket ORDER BY p.n)
  ), short AS (
    SELECT bucket, before FROM entry WHERE balance_after < 0 ORDER BY seq LIMIT 1
  ), written AS (
    INSERT INTO "ledger_entries" (merchant_id, is_test, currency, bucket, kind, amount, seq, balance_after, transaction_id, withdrawal_id)
    SELECT p_merchant, p_is_test, p_currency, bucket, kind, amount, seq, balance_after, transaction_id, withdrawal_id
      FROM entry WHERE NOT EXISTS (SELECT 1 FROM short)
  )
  SELECT bucket, before FROM short;
$$;
