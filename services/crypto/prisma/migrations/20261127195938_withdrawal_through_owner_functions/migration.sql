-- From services/crypto/src/chains/store/is_payout_wallet.sql (generated: edit that file, not this one)
-- Whether an address is one of the platform's hot wallets, as stored (EIP-55 on EVM
-- networks). create_withdrawal refuses to pay one out. PL/pgSQL, so its plan is kept per session.
CREATE OR REPLACE FUNCTION "is_payout_wallet"(p_address text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "payout_wallets" pw WHERE pw.address = p_address);
END;
$$;

-- From services/crypto/src/modules/invoices/store/is_deposit_address.sql (generated: edit that file, not this one)
-- Whether an address is one of the platform's invoice deposit addresses (any network or mode),
-- as stored (EIP-55 on EVM networks). create_withdrawal refuses to pay one out. PL/pgSQL, so
-- its plan is kept per session.
CREATE OR REPLACE FUNCTION "is_deposit_address"(p_address text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "invoices" i WHERE i.address = p_address);
END;
$$;

-- From services/crypto/src/modules/withdrawals/store/create_withdrawal.sql (generated: edit that file, not this one)
-- Creates a withdrawal in one statement, under the balance lock: refusals (an own address,
-- the hourly count, the 24-hour limit, funds), the hold (ledger_post), the withdrawal, its
-- minute's volume and its processing job (queue.enqueue_outbox, the outbox owner's function),
-- all in the caller's transaction; the row comes back whatever the outcome.
-- p_own_address: the recipient as the platform spells its own addresses (EIP-55 on EVM
-- networks, as deposit addresses and hot wallets are stored), so an index finds it; the
-- invoices module (is_deposit_address) and chains (is_payout_wallet) answer for their tables.
CREATE OR REPLACE FUNCTION "create_withdrawal"(
  p_id uuid, p_merchant uuid, p_is_test boolean, p_number text, p_to_address text,
  p_amount numeric, p_fee numeric, p_net_amount numeric, p_currency "Currency", p_network "Network",
  p_created_at timestamptz, p_daily_limit numeric, p_idempotency_key text,
  p_job_queue text, p_job_payload jsonb, p_own_address text, p_hourly_count integer
) RETURNS TABLE (outcome text, withdrawal_id uuid, withdrawn numeric, available numeric, counted integer,
                withdrawal_number text, to_address text, amount numeric, fee numeric, net_amount numeric,
                currency "Currency", network "Network", status "WithdrawalStatus", created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_existing uuid;
  v_withdrawn numeric;
  v_counted integer;
  v_short record;
BEGIN
  PERFORM lock_balance(p_merchant, p_is_test, p_currency);

  IF p_idempotency_key IS NOT NULL THEN
    SELECT w.id INTO v_existing FROM "withdrawals" w
     WHERE w.merchant_id = p_merchant AND w.is_test = p_is_test AND w.idempotency_key = p_idempotency_key
       AND w.created_at > p_created_at - interval '24 hours';
    IF FOUND THEN
      RETURN QUERY SELECT 'existing'::text, w.id, NULL::numeric, NULL::numeric, NULL::integer, w.withdrawal_number, w.to_address, w.amount,
                          w.fee, w.net_amount, w.currency, w.network, w.status, w.created_at
                     FROM "withdrawals" w WHERE w.id = v_existing;
      RETURN;
    END IF;
  END IF;

  IF is_deposit_address(p_own_address) OR is_payout_wallet(p_own_address) THEN
    RETURN QUERY SELECT 'own_address'::text, NULL::uuid, NULL::numeric, NULL::numeric, NULL::integer, NULL, NULL, NULL::numeric,
                        NULL::numeric, NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  -- The last hour in whole minutes (this one and the 60 before), every currency of the
  -- merchant's mode. Concurrent withdrawals of other currencies hold other balance locks, so
  -- the count may be passed by at most one per currency at once: it bounds the rate, not money.
  SELECT COALESCE(SUM(v.withdrawals), 0) INTO v_counted FROM "withdrawal_volume" v
   WHERE v.merchant_id = p_merchant AND v.is_test = p_is_test
     AND v.minute >= date_trunc('minute', p_created_at) - interval '1 hour';
  IF v_counted >= p_hourly_count THEN
    RETURN QUERY SELECT 'count_exceeded'::text, NULL::uuid, NULL::numeric, NULL::numeric, v_counted, NULL, NULL, NULL::numeric,
                        NULL::numeric, NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  -- The rolling 24 hours in whole minutes: this minute and the 1,440 before it, a little more
  -- than 24 h, so the limit holds over every exact 24-hour window too. Failed withdrawals gave
  -- their amount back (the failure path takes it out of its minute).
  SELECT COALESCE(SUM(v.amount), 0) INTO v_withdrawn FROM "withdrawal_volume" v
   WHERE v.merchant_id = p_merchant AND v.is_test = p_is_test AND v.currency = p_currency
     AND v.minute >= date_trunc('minute', p_created_at) - interval '24 hours';
  IF v_withdrawn + p_amount > p_daily_limit THEN
    RETURN QUERY SELECT 'limit_exceeded'::text, NULL::uuid, v_withdrawn, NULL::numeric, NULL::integer, NULL, NULL, NULL::numeric, NULL::numeric,
                        NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  SELECT * INTO v_short FROM ledger_post(p_merchant, p_is_test, p_currency,
    ARRAY['available']::"LedgerBucket"[], ARRAY['withdrawal_hold']::"LedgerEntryKind"[], ARRAY[-p_amount],
    ARRAY[NULL]::uuid[], ARRAY[p_id]);
  IF FOUND THEN
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::uuid, NULL::numeric, v_short.short_balance, NULL::integer, NULL, NULL, NULL::numeric,
                        NULL::numeric, NULL::numeric, NULL::"Currency", NULL::"Network", NULL::"WithdrawalStatus", NULL::timestamptz;
    RETURN;
  END IF;

  INSERT INTO "withdrawals" (id, merchant_id, is_test, withdrawal_number, to_address, amount, fee, net_amount,
                             currency, network, created_at, idempotency_key)
  VALUES (p_id, p_merchant, p_is_test, p_number, p_to_address, p_amount, p_fee, p_net_amount,
          p_currency, p_network, p_created_at, p_idempotency_key);
  INSERT INTO "withdrawal_volume" AS v (merchant_id, is_test, currency, minute, amount, withdrawals)
  VALUES (p_merchant, p_is_test, p_currency, date_trunc('minute', p_created_at), p_amount, 1)
  ON CONFLICT (merchant_id, is_test, currency, minute) DO UPDATE SET amount = v.amount + EXCLUDED.amount, withdrawals = v.withdrawals + 1;
  PERFORM queue.enqueue_outbox(p_job_queue, p_id::text, p_job_payload);
  RETURN QUERY SELECT 'created'::text, p_id, NULL::numeric, NULL::numeric, NULL::integer, p_number, p_to_address, p_amount, p_fee, p_net_amount,
                      p_currency, p_network, 'Pending'::"WithdrawalStatus", p_created_at;
END;
$$;
