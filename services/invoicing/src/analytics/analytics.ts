import type { Owner } from '@pay/auth';
import { toJsonNumber, type Clock } from '@pay/kit';
import { ApiError } from '@pay/schemas';
import type { Pool } from 'pg';
import { ANALYTICS_DEFAULT_DAYS, ANALYTICS_FIRST_DAY, ANALYTICS_LAST_DAY, ANALYTICS_MAX_DAYS, TOP_CUSTOMERS, type GroupBy } from './schemas';

const DAY_MS = 86_400_000;
const STEP: Record<GroupBy, string> = { day: '1 day', week: '1 week', month: '1 month' };
const FIRST = new Date(`${ANALYTICS_FIRST_DAY}T00:00:00.000Z`);
const AFTER_LAST = new Date(new Date(`${ANALYTICS_LAST_DAY}T00:00:00.000Z`).getTime() + DAY_MS);

/** Refuses (400) an instant outside the days analytics answer for (the period's end may be the very end of the last day). */
export function assertAnalyticsRange(at: Date, field: string): void {
  if (at < FIRST || at > AFTER_LAST) {
    const message = `must be from ${ANALYTICS_FIRST_DAY} to ${ANALYTICS_LAST_DAY}`;
    throw new ApiError('VALIDATION_ERROR', `${field} ${message}`, [{ field, message }]);
  }
}

/** A `YYYY-MM-DD` that is a real date in the range analytics answer for, as UTC midnight. */
function parseDate(text: string, field: string): Date {
  const d = new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) {
    throw new ApiError('VALIDATION_ERROR', `${field} is not a calendar date: ${text}`, [{ field, message: 'must be a real date, YYYY-MM-DD' }]);
  }
  assertAnalyticsRange(d, field);
  return d;
}

/** The period as [start, stop) in UTC: whole days, endDate included. */
export function periodOf(q: { startDate?: string; endDate?: string }, clock: Clock): { start: Date; stop: Date } {
  const end = q.endDate ? parseDate(q.endDate, 'endDate') : new Date(clock.now().toISOString().slice(0, 10) + 'T00:00:00.000Z');
  const start = q.startDate ? parseDate(q.startDate, 'startDate') : new Date(end.getTime() - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS);
  const days = (end.getTime() - start.getTime()) / DAY_MS + 1;
  if (days < 1) throw new ApiError('VALIDATION_ERROR', 'startDate must not be after endDate', [{ field: 'startDate', message: 'must be on or before endDate' }]);
  if (days > ANALYTICS_MAX_DAYS) {
    throw new ApiError('VALIDATION_ERROR', `The period is ${days} days; at most ${ANALYTICS_MAX_DAYS}`, [{ field: 'startDate', message: `must be at most ${ANALYTICS_MAX_DAYS} days before endDate` }]);
  }
  return { start, stop: new Date(end.getTime() + DAY_MS) };
}

// The owner's RUB invoices (v1 invoices in rubles count too; other currencies never mix in).
const MINE = `merchant_id = $1 AND is_test = $2 AND currency = 'RUB'`;
// What a paid invoice brought: its amount less its refunds.
const KEPT = '(amount - refunded_amount)';

const SUMMARY_SQL = `
  WITH created AS (
    SELECT count(*)::int AS invoice_count,
           count(*) FILTER (WHERE status = 'PAID')::int AS paid_count,
           count(*) FILTER (WHERE status = 'EXPIRED')::int AS expired_count,
           count(*) FILTER (WHERE status = 'CANCELLED')::int AS cancelled_count
      FROM invoicing.invoices WHERE ${MINE} AND created_at >= $3 AND created_at < $4),
  paid AS (
    SELECT COALESCE(sum(${KEPT}), 0) AS revenue, count(*)::int AS transactions
      FROM invoicing.invoices WHERE ${MINE} AND status = 'PAID' AND paid_at >= $3 AND paid_at < $4)
  SELECT paid.revenue, paid.transactions,
         CASE WHEN paid.transactions = 0 THEN 0 ELSE round(paid.revenue / paid.transactions, 2) END AS average_amount,
         CASE WHEN created.invoice_count = 0 THEN 0 ELSE round(created.paid_count::numeric / created.invoice_count, 4) END AS conversion_rate,
         created.*
    FROM created, paid`;

/**
 * `buckets`: every bucket (UTC) from the one holding the period's start ($3) to the one holding
 * its last instant ($4, excluded), of the unit in `unit` and the step in `step` (parameters),
 * so empty buckets show as zeros. Shared by analytics v2 and v1.
 */
export const bucketsCte = (unit: string, step: string) => `buckets AS (
    SELECT generate_series(date_trunc(${unit}, $3::timestamptz AT TIME ZONE 'UTC'),
                           date_trunc(${unit}, ($4::timestamptz AT TIME ZONE 'UTC') - interval '1 microsecond'),
                           ${step}::interval) AS bucket)`;

// Buckets in UTC; every bucket of the period is there, empty ones with zeros.
const TIMELINE_SQL = `
  WITH ${bucketsCte('$5', '$6')},
  created AS (
    SELECT date_trunc($5, created_at AT TIME ZONE 'UTC') AS bucket, count(*)::int AS invoices
      FROM invoicing.invoices WHERE ${MINE} AND created_at >= $3 AND created_at < $4 GROUP BY 1),
  paid AS (
    SELECT date_trunc($5, paid_at AT TIME ZONE 'UTC') AS bucket, sum(${KEPT}) AS revenue, count(*)::int AS transactions
      FROM invoicing.invoices WHERE ${MINE} AND status = 'PAID' AND paid_at >= $3 AND paid_at < $4 GROUP BY 1)
  SELECT to_char(b.bucket, 'YYYY-MM-DD') AS date, COALESCE(p.revenue, 0) AS revenue,
         COALESCE(p.transactions, 0) AS transactions, COALESCE(c.invoices, 0) AS invoices
    FROM buckets b LEFT JOIN created c USING (bucket) LEFT JOIN paid p USING (bucket)
   ORDER BY b.bucket`;

const TOP_SQL = `
  SELECT c.id, c.full_name, sum(i.amount - i.refunded_amount) AS total_amount, count(*)::int AS payment_count
    FROM invoicing.invoices i JOIN invoicing.customers c ON c.id = i.customer_id
   WHERE i.merchant_id = $1 AND i.is_test = $2 AND i.currency = 'RUB' AND i.status = 'PAID' AND i.paid_at >= $3 AND i.paid_at < $4
   GROUP BY c.id, c.full_name
   ORDER BY total_amount DESC, payment_count DESC, c.id
   LIMIT ${TOP_CUSTOMERS}`;

interface SummaryRow {
  revenue: string;
  transactions: number;
  average_amount: string;
  conversion_rate: string;
  invoice_count: number;
  paid_count: number;
  expired_count: number;
  cancelled_count: number;
}

/**
 * Analytics v2, aggregated by Postgres (no invoice row is loaded here): three statements over
 * the (merchant, mode, createdAt) and (merchant, mode, paidAt) indexes, run side by side.
 */
export async function analyticsOf(sql: Pool, owner: Owner, period: { start: Date; stop: Date }, groupBy: GroupBy) {
  const base = [owner.merchantId, owner.isTest, period.start, period.stop];
  const [summary, timeline, top] = await Promise.all([
    sql.query<SummaryRow>(SUMMARY_SQL, base),
    sql.query<{ date: string; revenue: string; transactions: number; invoices: number }>(TIMELINE_SQL, [...base, groupBy, STEP[groupBy]]),
    sql.query<{ id: string; full_name: string | null; total_amount: string; payment_count: number }>(TOP_SQL, base),
  ]);
  const s = summary.rows[0]!;
  return {
    totalRevenue: toJsonNumber(s.revenue),
    totalTransactions: s.transactions,
    averageAmount: toJsonNumber(s.average_amount),
    conversionRate: toJsonNumber(s.conversion_rate),
    invoiceCount: s.invoice_count,
    paidCount: s.paid_count,
    expiredCount: s.expired_count,
    cancelledCount: s.cancelled_count,
    timeline: timeline.rows.map((r) => ({ date: r.date, revenue: toJsonNumber(r.revenue), transactions: r.transactions, invoices: r.invoices })),
    topCustomers: top.rows.map((r) => ({ id: r.id, fullName: r.full_name, totalAmount: toJsonNumber(r.total_amount), paymentCount: r.payment_count })),
  };
}
