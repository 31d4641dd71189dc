import { formatUnits, parseUnits } from 'viem';
import { CRYPTO_DECIMALS, Money, money } from '../../shared/money';

/**
 * Token amounts between the ledger (decimal, six places) and the chain (integer base units of
 * the token's own `decimals`, 6 for USDT on Ethereum, 18 on BSC). Both ways go through
 * decimal strings, never floats.
 */
export function toUnits(amount: Money, decimals: number): bigint {
  return parseUnits(amount.toFixed(), decimals);
}

/**
 * The ledger keeps six places: finer digits of an 18-decimal token (less than a millionth of
 * a dollar) are not counted, so a credit never exceeds what arrived.
 */
export function fromUnits(units: bigint, decimals: number): Money {
  return money(formatUnits(units, decimals)).toDecimalPlaces(CRYPTO_DECIMALS, Money.ROUND_DOWN);
}
