import Decimal from 'decimal.js';
import { Money } from '@pay/money';
import { parseMoney } from '@pay/schemas';

export { Money, MAX_AMOUNT, money, toJsonNumber } from '@pay/money';

export const CRYPTO_DECIMALS = 6;

/** A crypto amount from the client: at most six places (see parseMoney). */
export function parseAmount(value: number, field = 'amount', decimals = CRYPTO_DECIMALS): Money {
  return parseMoney(value, { field, decimals });
}

/** Withdrawal fee: 1% of the amount, rounded half-up to 6 places. */
export function withdrawalFee(amount: Money, percent: Decimal.Value = 1): { fee: Money; netAmount: Money } {
  const fee = amount.mul(percent).div(100).toDecimalPlaces(CRYPTO_DECIMALS, Money.ROUND_HALF_UP);
  return { fee, netAmount: amount.sub(fee) };
}

/** Fee on an incoming payment, rounded the same way. */
export function percentOf(amount: Money, percent: Decimal.Value): Money {
  return amount.mul(percent).div(100).toDecimalPlaces(CRYPTO_DECIMALS, Money.ROUND_HALF_UP);
}
