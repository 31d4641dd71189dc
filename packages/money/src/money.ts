import Decimal from 'decimal.js';
import { JsonDecimal } from './json-decimal';

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
 * Why an amount a client sent is refused, or null: not finite, zero or less, more than
 * `decimals` places, or not below `max`. `parseMoney` (@pay/schemas) turns the reason into
 * the 400 that names the field.
 */
export function amountProblem(amount: Money, opts: { decimals: number; max?: Money }): string | null {
  const max = opts.max ?? MAX_AMOUNT;
  return !amount.isFinite()
    ? 'must be a finite number'
    : amount.lte(0)
      ? 'must be greater than 0'
      : amount.decimalPlaces() > opts.decimals
        ? `must have at most ${opts.decimals} decimal places`
        : amount.gte(max)
          ? `must be less than ${max.toString()}`
          : null;
}

/** A `numeric` read from Postgres (Prisma Decimal, pg text) or a literal → Money. */
export function money(value: { toString(): string } | string | number): Money {
  return new Money(typeof value === 'object' ? value.toString() : value);
}

/** Exact decimal → a JSON number with the same digits (see JsonDecimal). */
export function toJsonNumber(value: { toString(): string }): JsonDecimal {
  return new JsonDecimal(new Money(value.toString()).toFixed());
}
