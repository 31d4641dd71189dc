-- The newest entry of one account: its chain position and the balance it left. No row for an
-- account that has none. The one definition of "the head", for the writer and the readers.
CREATE OR REPLACE FUNCTION "ledger_head"(p_merchant uuid, p_is_test boolean, p_currency "Currency", p_bucket "LedgerBucket")
RETURNS TABLE (seq bigint, balance_after numeric)
LANGUAGE sql STABLE AS $$
  SELECT e.seq, e.balance_after FROM "ledger_entries" e
   WHERE e.merchant_id = p_merchant AND e.is_test = p_is_test AND e.currency = p_currency AND e.bucket = p_bucket
   ORDER BY e.seq DESC LIMIT 1;
$$;
