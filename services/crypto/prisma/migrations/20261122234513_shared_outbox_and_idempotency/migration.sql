-- The outbox, the idempotency answers and webhook events move to the packages that own them
-- (schemas "queue", "kit", "webhooks"), so invoicing shares them instead of restating them.
-- Their migrations run before this one (packages deploy before services). The moves are
-- guarded so the migration also replays alone, as in a shadow database.
DO $$
BEGIN
  IF to_regclass('queue.outbox') IS NOT NULL THEN
    INSERT INTO queue.outbox (queue, job_id, payload, created_at, published_at)
    SELECT queue, job_id, payload, created_at, published_at FROM "outbox"
     WHERE queue <> 'webhook-events' AND published_at IS NULL
     ORDER BY id;
  END IF;
  -- Events were relayed to a queue nobody consumed yet: all of them become events to deliver.
  IF to_regclass('webhooks.events') IS NOT NULL THEN
    INSERT INTO webhooks.events (id, source, merchant_id, is_test, type, body, created_at)
    SELECT (payload->>'eventId')::uuid, payload->>'source', (payload->>'merchantId')::uuid,
           (payload->>'isTest')::boolean, payload->>'event', payload->'body', created_at
      FROM "outbox" WHERE queue = 'webhook-events'
    ON CONFLICT (id) DO NOTHING;
  END IF;
  IF to_regclass('kit.idempotency_keys') IS NOT NULL THEN
    INSERT INTO kit.idempotency_keys (scope, key, fingerprint, status, response_status, response_body, created_at, locked_at)
    SELECT 'crypto:' || scope, key, fingerprint, status, response_status, response_body, created_at, locked_at
      FROM "idempotency_keys"
    ON CONFLICT DO NOTHING;
  END IF;
END $$;

-- DropTable
DROP TABLE "idempotency_keys";

-- DropTable
DROP TABLE "outbox";

-- create_withdrawal writes the processing job to the shared outbox (body otherwise unchanged).
CREATE OR REPLACE FUNCTION "create_withdrawal"(
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
  INSERT INTO queue.outbox (queue, job_id, payload) VALUES (p_job_queue, p_id::text, p_job_payload);
  RETURN QUERY SELECT 'created'::text, p_id, NULL::numeric, NULL::numeric;
END;
$$;
