import type { Owner } from '@pay/auth';
import { type Clock } from '@pay/runtime';
import { toJsonNumber } from '@pay/money';
import { ApiError, parseDay } from '@pay/schemas';
import type { InvoicingQueries } from '../../db';
import { rubAnalyticsOf } from '../invoices/analytics';
import { customerNamesOf } from '../customers/customers';
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
  const d = parseDay(text, field);
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

/**
 * Analytics v2, aggregated by Postgres (no invoice row is loaded here): three reads the
 * invoices module publishes (summary, timeline, top payers), run side by side, then the top
 * payers' names from the customers module.
 */
export async function analyticsOf(on: InvoicingQueries, owner: Owner, period: { start: Date; stop: Date }, groupBy: GroupBy) {
  const [s, timeline, top] = await rubAnalyticsOf(on, owner, period, groupBy, STEP[groupBy], TOP_CUSTOMERS);
  const names = await customerNamesOf(on, top.map((r) => r.customer_id));
  return {
    totalRevenue: toJsonNumber(s.revenue),
    totalTransactions: s.transactions,
    averageAmount: toJsonNumber(s.average_amount),
    conversionRate: toJsonNumber(s.conversion_rate),
    invoiceCount: s.invoice_count,
    paidCount: s.paid_count,
    expiredCount: s.expired_count,
    cancelledCount: s.cancelled_count,
    timeline: timeline.map((r) => ({ date: r.date, revenue: toJsonNumber(r.revenue), transactions: r.transactions, invoices: r.invoices })),
    topCustomers: top.map((r) => ({ id: r.customer_id, fullName: names.get(r.customer_id) ?? null, totalAmount: toJsonNumber(r.total_amount), paymentCount: r.payment_count })),
  };
}
