import { Type } from '@sinclair/typebox';
import { ApiError } from './errors';

/** A query's calendar day, `YYYY-MM-DD` (UTC): the shape; `parseDay` checks that it is a real day. */
export const IsoDay = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, examples: ['2026-01-15'] });

/** A `YYYY-MM-DD` that is a real day (not 2026-02-30), as its UTC midnight; a 400 naming the field otherwise. */
export function parseDay(text: string, field: string): Date {
  const d = new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) {
    throw new ApiError('VALIDATION_ERROR', `${field} is not a calendar date: ${text}`, [{ field, message: 'must be a real date, YYYY-MM-DD' }]);
  }
  return d;
}
