import type { Currency, Network } from '../../generated/prisma/client';
import type { Money } from '../../shared/money';

// What a check finds, apart from the check (solvency.ts) and the gauges it sets (metrics.ts),
// which both read it.

/** One token on one network: what is on chain against what the ledger owes. Token amounts in tokens. */
export interface SolvencyLine {
  network: Network;
  currency: Currency;
  /** sweptTo: what sits at addresses sweeps sent the token to that are not hot wallets (a cold wallet). */
  onChain: { hotWallets: Money; deposits: Money; depositAddresses: number; sweptTo: Money; total: Money };
  owed: { available: Money; pending: Money; unsentWithdrawals: Money; total: Money };
  /** onChain.total - owed.total: the platform's own tokens (fees) when positive, a shortfall when negative. */
  gap: Money;
  /** The hot wallets' native coin, what one payout's gas costs now, and how many payouts it covers. */
  gas: { symbol: string; balance: Money; perPayout: Money; payouts: number };
  hotWallets: { address: string; tokens: Money }[];
  sweptTo: { address: string; tokens: Money }[];
}
