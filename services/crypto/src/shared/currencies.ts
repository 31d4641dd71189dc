import type { Currency, Network } from '../generated/prisma/client';

export interface CurrencyInfo {
  code: Currency;
  currencyName: string;
  network: Network;
  /** The spec's network names (Tron, Ethereum, BSC); the code `network` is the same word. */
  networkName: string;
  /** Smallest unit on chain; every amount is kept to this many decimal places. */
  decimals: number;
}

/** The currencies of the spec, in the order balances are listed. */
export const CURRENCIES: readonly CurrencyInfo[] = [
  { code: 'USDT_TRC20', currencyName: 'Tether USD', network: 'Tron', networkName: 'Tron', decimals: 6 },
  { code: 'USDT_ERC20', currencyName: 'Tether USD', network: 'Ethereum', networkName: 'Ethereum', decimals: 6 },
  { code: 'USDC_ERC20', currencyName: 'USD Coin', network: 'Ethereum', networkName: 'Ethereum', decimals: 6 },
  { code: 'USDT_BEP20', currencyName: 'Tether USD', network: 'BSC', networkName: 'BSC', decimals: 6 },
  { code: 'USDC_BEP20', currencyName: 'USD Coin', network: 'BSC', networkName: 'BSC', decimals: 6 },
];

export const CURRENCY_CODES = CURRENCIES.map((c) => c.code);
export const NETWORKS: readonly Network[] = ['Tron', 'Ethereum', 'BSC'];

const byCode = new Map(CURRENCIES.map((c) => [c.code, c]));

export function currencyInfo(code: Currency): CurrencyInfo {
  const info = byCode.get(code);
  if (!info) throw new Error(`unknown currency ${code}`);
  return info;
}
