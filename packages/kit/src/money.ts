import Decimal from 'decimal.js';
import { ApiError } from '@pay/schemas';
import { JsonDecimal } from './http/exact-json';

/**
 * Money in every service: decimal.js, never binary floating point, from the
 * JSON edge to Postgres `numeric` and back. Enough precision that no sum of amounts under
 * 10^12 with six places ever rounds.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

/** Amounts stay below this so every value prints exactly as a JSON number (≤ 15 digits). */
export const MAX_AMOUNT = new Money('1000000000');

/**
 * A JSON number from the client → an exact decimal. The number's shortest decimal form is
 * what the client wrote (100.1 stays 100.1); more than `decimals` places, zero, negatives and
 * absurd sizes are refused with the field named.
 */
export function parseMoney(value: number, opts: { field?: string; decimals: number; max?: Money }): Money {
  const field = opts.field ?? 'amount';
  const max = opts.max ?? MAX_AMOUNT;
  const amount = new Money(String(value));
  const problem = !amount.isFinite()
    ? 'must be a finite number'
    : amount.lte(0)
      ? 'must be greater than 0'
      : amount.decimalPlaces() > opts.decimals
        ? `must have at most ${opts.decimals} decimal places`
        : amount.gte(max)
          ? `must be less than ${max.toString()}`
          : null;
  if (problem) throw new ApiError('VALIDATION_ERROR', `${field} ${problem}`, [{ field, message: problem }]);
  return amount;
}

/** A `numeric` read from Postgres (Prisma Decimal, pg text) or a literal → Money. */
export function money(value: { toString(): string } | string | number): Money {
  return new Money(typeof value === 'object' ? value.toString() : value);
}

/** Exact decimal → a JSON number with the same digits (see JsonDecimal). */
export function toJsonNumber(value: { toString(): string }): JsonDecimal {
  return new JsonDecimal(new Money(value.toString()).toFixed());
}
