-- Whether an address is one of the platform's invoice deposit addresses (any network or mode),
-- as stored (EIP-55 on EVM networks). create_withdrawal refuses to pay one out. PL/pgSQL, so
-- its plan is kept per session.
CREATE OR REPLACE FUNCTION "is_deposit_address"(p_address text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "invoices" i WHERE i.address = p_address);
END;
$$;
