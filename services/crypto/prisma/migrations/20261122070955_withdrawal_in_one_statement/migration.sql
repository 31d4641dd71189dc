-- AlterTable
ALTER TABLE "withdrawals" ADD COLUMN     "idempotency_key" TEXT;

-- CreateIndex
CREATE INDEX "withdrawals_merchant_id_is_test_idempotency_key_idx" ON "withdrawals"("merchant_id", "is_test", "idempotency_key");

-- Creates a withdrawal in one statement: under the balance lock, checks the rolling 24-hour
-- limit, holds the amount in the ledger, writes the withdrawal and its processing job to the
-- outbox. One call is one round trip, so the lock is held for the time Postgres needs and
-- never across the application's network turns. Amount, fee and number are computed by the
-- caller; this decides only what depends on the other withdrawals of the balance.
-- outcome: 'created' | 'existing' (withdrawal_id: the one made earlier with the same
-- Idempotency-Key) | 'limit_exceeded' (withdrawn: the 24-hour sum before this one) |
-- 'insufficient_balance' (available: what the balance held).
CREATE FUNCTION "create_withdrawal"(
  p_id uuid, p_merchant uuid, p_is_test boolean, p_number text, p_to_address text,
  p_amount numeric, p_fee numeric, p_net_amount numeric, p_currency "Currency", p_network "Network",
  p_created_at timestamptz, p_daily_limit numeric, p_idempotency_key text,
  p_job_queue text, p_job_payload jsonb
) RETURNS TABLE (outcome text, withdrawal_id uuid, withdrawn numeric, available numeric)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_existing uuid;
  v_withdrawn numeric;
  v_short record;
BEGIN
  PERFORM lock_balance(p_merchant, p_is_test, p_currency);

  IF p_idempotency_key IS NOT NULL THEN
    SELECT w.id INTO v_existing FROM "withdrawals" w
     WHERE w.merchant_id = p_merchant AND w.is_test = p_is_test AND w.idempotency_key = p_idempotency_key
       AND w.created_at > p_created_at - interval '24 hours';
    IF FOUND THEN
      RETURN QUERY SELECT 'existing'::text, v_existing, NULL::numeric, NULL::numeric;
      RETURN;
    END IF;
  END IF;

  -- Failed withdrawals gave their amount back, so they do not count toward the limit.
  SELECT COALESCE(SUM(w.amount), 0) INTO v_withdrawn FROM "withdrawals" w
   WHERE w.merchant_id = p_merchant AND w.is_test = p_is_test AND w.currency = p_currency
     AND w.status <> 'Failed' AND w.created_at > p_created_at - interval '24 hours';
  IF v_withdrawn + p_amount > p_daily_limit THEN
    RETURN QUERY SELECT 'limit_exceeded'::text, NULL::uuid, v_withdrawn, NULL::numeric;
    RETURN;
  END IF;

  SELECT * INTO v_short FROM ledger_post(p_merchant, p_is_test, p_currency,
    ARRAY['available']::"LedgerBucket"[], ARRAY['withdrawal_hold']::"LedgerEntryKind"[], ARRAY[-p_amount],
    ARRAY[NULL]::uuid[], ARRAY[p_id]);
  IF FOUND THEN
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::uuid, NULL::numeric, v_short.short_balance;
    RETURN;
  END IF;

  INSERT INTO "withdrawals" (id, merchant_id, is_test, withdrawal_number, to_address, amount, fee, net_amount,
                             currency, network, created_at, idempotency_key)
  VALUES (p_id, p_merchant, p_is_test, p_number, p_to_address, p_amount, p_fee, p_net_amount,
          p_currency, p_network, p_created_at, p_idempotency_key);
  INSERT INTO "outbox" (queue, job_id, payload) VALUES (p_job_queue, p_id::text, p_job_payload);
  RETURN QUERY SELECT 'created'::text, p_id, NULL::numeric, NULL::numeric;
END;
$$;
