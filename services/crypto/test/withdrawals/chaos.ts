import { apiClient, fundCryptoMerchant, registerCryptoMerchant, startChaosStack, type ChaosStackOptions } from '@pay/testing';
import { holdsAndAvailableIn } from '../ledger/store';
import { withdrawalCountIn, type SqlQuery } from './store';

/**
 * What the withdrawal chaos tests start from: a chaos stack of their own (directly on its
 * Postgres, or through PgBouncer), a crypto process on it with no daily limit, and a merchant
 * holding 990 USDT_TRC20 (1000 less the 1% fee), with its signing client and a read of what its
 * ledger holds (withdrawals made, holds, available). Close `stack` when done.
 */
export async function fundedMerchantOnChaosStack(name: string, opts: ChaosStackOptions = {}) {
  const stack = await startChaosStack(name, opts);
  try {
    const svc = await stack.spawn('crypto', { WITHDRAWAL_DAILY_LIMIT: '100000' });
    const m = await registerCryptoMerchant(svc.url);
    await fundCryptoMerchant(svc.url, m, 'USDT_TRC20', 1000);
    const client = apiClient(() => svc.url, m, 'crypto');
    const query: SqlQuery = (text, values) => stack.query(text, values);
    const ledger = async () => ({ withdrawals: await withdrawalCountIn(query, m.merchantId), ...(await holdsAndAvailableIn(query, m.merchantId)) });
    return { stack, client, ledger };
  } catch (err) {
    await stack.close();
    throw err;
  }
}
