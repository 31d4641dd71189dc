-- The balance lock: every change to one balance (merchant, mode, currency) takes it first, so
-- writers of one balance queue instead of failing on the chain position.
CREATE OR REPLACE FUNCTION "lock_balance"(p_merchant uuid, p_is_test boolean, p_currency "Currency") RETURNS void
LANGUAGE sql VOLATILE AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(
    'balance:' || p_merchant || ':' || (CASE WHEN p_is_test THEN 'test' ELSE 'live' END) || ':' || p_currency, 0));
$$;
