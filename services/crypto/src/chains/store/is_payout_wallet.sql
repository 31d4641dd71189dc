-- Whether an address is one of the platform's hot wallets, as stored (EIP-55 on EVM
-- networks). create_withdrawal refuses to pay one out. PL/pgSQL, so its plan is kept per session.
CREATE OR REPLACE FUNCTION "is_payout_wallet"(p_address text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "payout_wallets" pw WHERE pw.address = p_address);
END;
$$;
