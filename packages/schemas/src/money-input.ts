import { amountProblem, MAX_AMOUNT, Money } from '@pay/money';
import { ApiError } from './errors';

/**
 * A JSON number from the client → an exact decimal. The number's shortest decimal form is
 * what the client wrote (100.1 stays 100.1); more than `decimals` places, zero, negatives and
 * absurd sizes are refused with the field named (the rule is @pay/money's `amountProblem`).
 */
export function parseMoney(value: number, opts: { field?: string; decimals: number; max?: Money }): Money {
  const field = opts.field ?? 'amount';
  const amount = new Money(String(value));
  const problem = amountProblem(amount, { decimals: opts.decimals, max: opts.max ?? MAX_AMOUNT });
  if (problem) throw new ApiError('VALIDATION_ERROR', `${field} ${problem}`, [{ field, message: problem }]);
  return amount;
}
