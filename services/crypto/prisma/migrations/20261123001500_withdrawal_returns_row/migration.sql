-- create_withdrawal also returns the withdrawal it made (or found by Idempotency-Key), so a
-- withdrawal is created and answered in one round trip. The checks and writes are unchanged.
-- A function's result type cannot change in place: dropped and created again.
DROP FUNCTION "create_withdrawal"(uuid, uuid, boolean, text, text, numeric, numeric, numeric, "Currency", "Network", timestamptz, numeric, text, text, jsonb);

CREATE FUNCTION "create_withdrawal"(
  p_id uuid, p_merchant uuid, p_is_test boolean, p_number text, p_to_address text,
  p_amount numeric, p_fee numeric, p_net_amount numeric, p_currency "Currency", p_network "Network",
  p_created_at timestamptz, p_daily_limit numeric, p_idempotency_key text,
  p_job_queue text, p_job_payload jsonb
) RETURNS TABLE (outcome text, withdrawal_id uuid, withdrawn numeric, available numeric,
                withdrawal_number text, to_address text, amount numeric, fee numeric, net_amount numeric,
                currency "Currency", network "Network", status "WithdrawalStatus", created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
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
      RETURN QUERY SELECT 'existing'::text, w.id, NULL::numeric, NULL::numeric, w.withdrawal_number, w.to_address, w.amount,
                          w.fee, w.net_amount, w.currency, w.network, w.status, w.created_at
                     FROM "withdrawals" w WHERE w.id = v_existing;
      RETURN;
    END IF;
  END IF;

  -- Failed withdrawals gave their amount back, so they do not count toward the limit.
  SELECT COALESCE(SUM(w.amount), 0) INTO v_withdrawn FROM "withdrawals" w
   WHERE w.merchant_id = p_merchant AND w.is_test = p_is_test AND w.currency = p_currency
     AND w.status <> 'Failed' AND w.created_at > p_created_at - interval '24 hours';
  IF v_withdrawn + p_amount > p_daily_limit THEN
    RETURN QUERY SELECT 'limit_exceeded'::text, NULL::uuid, v_withdrawn, NULL::numeric, NULL, NULL, NULL::numeric, NULL::numeric,
                        NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  SELECT * INTO v_short FROM ledger_post(p_merchant, p_is_test, p_currency,
    ARRAY['available']::"LedgerBucket"[], ARRAY['withdrawal_hold']::"LedgerEntryKind"[], ARRAY[-p_amount],
    ARRAY[NULL]::uuid[], ARRAY[p_id]);
  IF FOUND THEN
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::uuid, NULL::numeric, v_short.short_balance, NULL, NULL, NULL::numeric,
                        NULL::numeric, NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  INSERT INTO "withdrawals" (id, merchant_id, is_test, withdrawal_number, to_address, amount, fee, net_amount,
                             currency, network, created_at, idempotency_key)
  VALUES (p_id, p_merchant, p_is_test, p_number, p_to_address, p_amount, p_fee, p_net_amount,
          p_currency, p_network, p_created_at, p_idempotency_key);
  INSERT INTO queue.outbox (queue, job_id, payload) VALUES (p_job_queue, p_id::text, p_job_payload);
  RETURN QUERY SELECT 'created'::text, p_id, NULL::numeric, NULL::numeric, p_number, p_to_address, p_amount, p_fee, p_net_amount,
                      p_currency, p_network, 'Pending'::"WithdrawalStatus", p_created_at;
END;
$$;
