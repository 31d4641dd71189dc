import Decimal from 'decimal.js';
import { ApiError } from '@pay/schemas';
import { JsonDecimal } from '@pay/kit';

/** Enough precision that no sum of 6-decimal amounts under 10^12 ever rounds. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

export const CRYPTO_DECIMALS = 6;
/** Amounts stay below this so every value prints exactly as a JSON number (≤ 15 digits). */
export const MAX_AMOUNT = new Money('1000000000');

/**
 * A JSON number from the client → an exact decimal. The number's shortest decimal form is
 * what the client wrote (100.1 stays 100.1); more than six places, zero, negatives and
 * absurd sizes are refused with the field named.
 */
export function parseAmount(value: number, field = 'amount', decimals = CRYPTO_DECIMALS): Money {
  const amount = new Money(String(value));
  const problem = !amount.isFinite()
    ? 'must be a finite number'
    : amount.lte(0)
      ? 'must be greater than 0'
      : amount.decimalPlaces() > decimals
        ? `must have at most ${decimals} decimal places`
        : amount.gte(MAX_AMOUNT)
          ? `must be less than ${MAX_AMOUNT.toString()}`
          : null;
  if (problem) throw new ApiError('VALIDATION_ERROR', `${field} ${problem}`, [{ field, message: problem }]);
  return amount;
}

/** Withdrawal fee: 1% of the amount, rounded half-up to 6 places (decisions.md §5). */
export function withdrawalFee(amount: Money, percent: Decimal.Value = 1): { fee: Money; netAmount: Money } {
  const fee = amount.mul(percent).div(100).toDecimalPlaces(CRYPTO_DECIMALS, Money.ROUND_HALF_UP);
  return { fee, netAmount: amount.sub(fee) };
}

/** Fee on an incoming payment, rounded the same way. */
export function percentOf(amount: Money, percent: Decimal.Value): Money {
  return amount.mul(percent).div(100).toDecimalPlaces(CRYPTO_DECIMALS, Money.ROUND_HALF_UP);
}

export function money(value: { toString(): string } | string | number): Money {
  return new Money(typeof value === 'object' ? value.toString() : value);
}

/** Exact decimal → a JSON number with the same digits (see JsonDecimal). */
export function toJsonNumber(value: { toString(): string }): JsonDecimal {
  return new JsonDecimal(new Money(value.toString()).toFixed());
}
