-- The one writer of the ledger. Appends postings to one balance's accounts, in order: each
-- entry takes the next position after its account's head and the running balance from it.
-- If any entry would take its bucket below zero, nothing is written and the first such
-- bucket is returned with the balance it held (the CHECK above would refuse the row anyway).
-- The caller holds lock_balance.
CREATE OR REPLACE FUNCTION "ledger_post"(
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
