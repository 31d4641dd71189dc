import type { Currency } from '../../generated/prisma/client';
import { CURRENCY_CODES } from '../../shared/currencies';
import { money, type Money } from '../../shared/money';

/**
 * Live withdrawal minimums, sized so the 1% fee pays for the payout's gas at the network's fee
 * ceiling (PAYOUT_MAX_FEE_GWEI_*): the arithmetic is in README "Withdrawal minimums". Test
 * mode costs no gas and keeps WITHDRAWAL_MIN_AMOUNT (1).
 */
export const DEFAULT_LIVE_MINIMUMS = 'USDT_ERC20=100,USDC_ERC20=100,USDT_BEP20=10,USDC_BEP20=10';

/**
 * `CURRENCY=amount` pairs, comma-separated, over the defaults: a currency the text does not
 * name keeps its default. Throws a message naming the variable and the bad entry.
 */
export function parseMinimums(text: string, variable = 'WITHDRAWAL_MINIMUMS'): Map<Currency, Money> {
  const out = new Map<Currency, Money>();
  for (const source of [DEFAULT_LIVE_MINIMUMS, text]) {
    for (const entry of source.split(',').map((e) => e.trim()).filter(Boolean)) {
      const m = /^([A-Z0-9_]+)=([0-9]+(?:\.[0-9]{1,6})?)$/.exec(entry);
      if (!m) throw new Error(`${variable}: "${entry}" is not CURRENCY=amount (e.g. USDT_ERC20=100, at most 6 decimals)`);
      const currency = m[1] as Currency;
      if (!CURRENCY_CODES.includes(currency)) throw new Error(`${variable}: ${m[1]} is not a currency (${CURRENCY_CODES.join(', ')})`);
      out.set(currency, money(m[2]!));
    }
  }
  return out;
}
