import type { Pool } from 'pg';
import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/kit';
import { ApiError } from '@pay/schemas';
import { assertAnalyticsRange, bucketsCte } from '../analytics/analytics';
import { ANALYTICS_MAX_DAYS } from '../analytics/schemas';
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

// The owner's invoices created in the period, of one currency when asked ($5).
const COHORT = `FROM invoicing.invoices
  WHERE merchant_id = $1 AND is_test = $2 AND created_at >= $3 AND created_at < $4
    AND ($5::invoicing."Currency" IS NULL OR currency = $5::invoicing."Currency")`;
// What a paid invoice brought: its amount less its refunds.
const KEPT = `COALESCE(sum(amount - refunded_amount) FILTER (WHERE status = 'PAID'), 0)`;

// One row per currency and the grand total (GROUPING = 1), in one scan.
const BY_CURRENCY_SQL = `
  SELECT GROUPING(currency) = 1 AS total, currency::text AS currency, count(*)::int AS count,
         count(*) FILTER (WHERE status = 'PAID')::int AS paid_count,
         count(*) FILTER (WHERE status = 'EXPIRED')::int AS expired_count,
         count(*) FILTER (WHERE status = 'CANCELLED')::int AS cancelled_count,
         ${KEPT} AS volume,
         COALESCE(round(${KEPT} / NULLIF(count(*) FILTER (WHERE status = 'PAID'), 0), 2), 0) AS average_amount,
         COALESCE(round(100.0 * count(*) FILTER (WHERE status = 'PAID') / NULLIF(count(*), 0), 2), 0) AS conversion_rate
    ${COHORT}
   GROUP BY ROLLUP (currency)`;

// Every bucket of the period (UTC, ISO weeks), empty ones with zeros.
const BY_PERIOD_SQL = `
  WITH ${bucketsCte('$6', '$7')},
  agg AS (
    SELECT date_trunc($6, created_at AT TIME ZONE 'UTC') AS bucket, count(*)::int AS count,
           count(*) FILTER (WHERE status = 'PAID')::int AS paid_count, ${KEPT} AS volume
      ${COHORT} GROUP BY 1)
  SELECT to_char(b.bucket, 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') AS date, COALESCE(a.volume, 0) AS volume,
         COALESCE(a.count, 0) AS count, COALESCE(a.paid_count, 0) AS paid_count
    FROM buckets b LEFT JOIN agg a USING (bucket) ORDER BY b.bucket`;

// Paid SBP payments by the payer's bank (cards have none), with each bank's share of them.
const BY_BANK_SQL = `
  SELECT payer_bank AS bank, count(*)::int AS count, sum(amount - refunded_amount) AS volume,
         round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS percentage
    ${COHORT} AND status = 'PAID' AND payer_bank IS NOT NULL
   GROUP BY payer_bank ORDER BY count(*) DESC, payer_bank`;

interface CurrencyRow {
  total: boolean;
  currency: string | null;
  count: number;
  paid_count: number;
  expired_count: number;
  cancelled_count: number;
  volume: string;
  average_amount: string;
  conversion_rate: string;
}

/**
 * Analytics v1, aggregated by Postgres over the invoices created in the period (a cohort):
 * counts by their status now, money of those paid, net of refunds. Three statements side by side.
 */
export async function v1AnalyticsOf(sql: Pool, owner: Owner, period: { start: Date; stop: Date }, q: { groupBy: V1GroupBy; currency?: string }) {
  const base = [owner.merchantId, owner.isTest, period.start, period.stop, q.currency ?? null];
  const [currencies, periods, banks] = await Promise.all([
    sql.query<CurrencyRow>(BY_CURRENCY_SQL, base),
    sql.query<{ date: string; volume: string; count: number; paid_count: number }>(BY_PERIOD_SQL, [...base, q.groupBy, STEP[q.groupBy]]),
    sql.query<{ bank: string; count: number; volume: string; percentage: string }>(BY_BANK_SQL, base),
  ]);
  // ROLLUP gives the grand-total row even when nothing matched.
  const all = currencies.rows.find((r) => r.total)!;
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
    byPeriod: periods.rows.map((r) => ({ date: r.date, volume: toJsonNumber(r.volume), count: r.count, paidCount: r.paid_count })),
    byCurrency: Object.fromEntries(
      currencies.rows.filter((r) => !r.total).map((r) => [r.currency!, { volume: toJsonNumber(r.volume), count: r.count, paidCount: r.paid_count }]),
    ),
    byBank: Object.fromEntries(banks.rows.map((r) => [r.bank, { volume: toJsonNumber(r.volume), count: r.count, percentage: Number(r.percentage) }])),
  };
}
