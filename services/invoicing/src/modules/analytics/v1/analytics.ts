import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/money';
import { ApiError } from '@pay/schemas';
import { assertAnalyticsRange } from '../analytics';
import { cohortAnalyticsOf } from '../../invoices/analytics';
import type { InvoicingQueries, Tables } from '../../../db';
import { ANALYTICS_MAX_DAYS } from '../schemas';
import { HOURLY_MAX_DAYS, type V1GroupBy } from './schemas';

const DAY_MS = 86_400_000;
const STEP: Record<V1GroupBy, string> = { hour: '1 hour', day: '1 day', week: '1 week', month: '1 month' };

function instant(text: string, field: 'from' | 'to'): Date {
  const dateOnly = text.length === 10;
  // A date-time without a zone is UTC, as everything else here.
  const iso = dateOnly ? `${text}T00:00:00.000Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== text)) {
    throw new ApiError('VALIDATION_ERROR', `${field} is not a real ISO 8601 date: ${text}`, [{ field, message: 'must be a real ISO 8601 date or date-time' }]);
  }
  // `to` as a date includes that whole day.
  const bound = dateOnly && field === 'to' ? new Date(at.getTime() + DAY_MS) : at;
  assertAnalyticsRange(bound, field);
  return bound;
}

/** The period [start, stop) of a v1 query, refused (400) when empty, too long, or too long for hours. */
export function v1PeriodOf(q: { from: string; to: string; groupBy: V1GroupBy }): { start: Date; stop: Date } {
  const start = instant(q.from, 'from');
  const stop = instant(q.to, 'to');
  const days = (stop.getTime() - start.getTime()) / DAY_MS;
  if (days <= 0) throw new ApiError('VALIDATION_ERROR', 'from must be before to', [{ field: 'from', message: 'must be before to' }]);
  if (q.groupBy === 'hour' && days > HOURLY_MAX_DAYS) {
    throw new ApiError('VALIDATION_ERROR', `groupBy=hour is for periods up to ${HOURLY_MAX_DAYS} days; this one is ${days.toFixed(2)} days`, [
      { field: 'groupBy', message: `hour needs a period of at most ${HOURLY_MAX_DAYS} days; use day, week or month` },
    ]);
  }
  if (days > ANALYTICS_MAX_DAYS) {
    throw new ApiError('VALIDATION_ERROR', `The period is ${Math.ceil(days)} days; at most ${ANALYTICS_MAX_DAYS}`, [{ field: 'from', message: `must be at most ${ANALYTICS_MAX_DAYS} days before to` }]);
  }
  return { start, stop };
}

type Period = { start: Date; stop: Date };

/**
 * Analytics v1, aggregated by Postgres over the invoices created in the period (a cohort):
 * counts by their status now, money of those paid, net of refunds. Three reads the invoices
 * module publishes, side by side.
 */
export async function v1AnalyticsOf(on: InvoicingQueries, owner: Owner, period: Period, q: { groupBy: V1GroupBy; currency?: Tables.Currency }) {
  const [currencies, periods, banks] = await cohortAnalyticsOf(on, owner, period, q.currency, q.groupBy, STEP[q.groupBy]);
  // ROLLUP gives the grand-total row even when nothing matched.
  const all = currencies.find((r) => r.total)!;
  return {
    summary: {
      totalVolume: toJsonNumber(all.volume),
      totalCount: all.count,
      paidCount: all.paid_count,
      expiredCount: all.expired_count,
      cancelledCount: all.cancelled_count,
      conversionRate: Number(all.conversion_rate),
      averageAmount: toJsonNumber(all.average_amount),
    },
    byPeriod: periods.map((r) => ({ date: r.date, volume: toJsonNumber(r.volume), count: r.count, paidCount: r.paid_count })),
    byCurrency: Object.fromEntries(
      currencies.filter((r) => !r.total).map((r) => [r.currency!, { volume: toJsonNumber(r.volume), count: r.count, paidCount: r.paid_count }]),
    ),
    byBank: Object.fromEntries(banks.map((r) => [r.bank, { volume: toJsonNumber(r.volume), count: r.count, percentage: Number(r.percentage) }])),
  };
}
