import { sql, type ExpressionBuilder } from 'kysely';
import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/money';
import { ApiError } from '@pay/schemas';
import { asInt, assertAnalyticsRange, bucketOf, bucketsOf, keptOf } from '../analytics';
import type { InvoicingTables, Tables } from '../../../db';
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

type Db = InvoicingTables;
type Period = { start: Date; stop: Date };

/** The owner's invoices created in the period, of one currency when asked. */
function cohort(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return db
    .selectFrom('invoices')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('created_at', '>=', p.start)
    .where('created_at', '<', p.stop)
    .$if(currency !== undefined, (q) => q.where('currency', '=', currency!));
}

type InvoicesEb = ExpressionBuilder<Tables.DB, 'invoices'>;
const paidCount = (eb: InvoicesEb) => eb.fn.countAll().filterWhere('status', '=', 'PAID');
/** What the paid invoices brought: their amounts less their refunds. */
const keptSum = (eb: InvoicesEb) => eb.fn.coalesce(eb.fn.sum<string>(keptOf(eb)).filterWhere('status', '=', 'PAID'), sql<string>`0`);

/** One row per currency and the grand total (GROUPING = 1), in one scan. */
function byCurrency(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return cohort(db, owner, p, currency)
    .select((eb) => [
      sql<boolean>`GROUPING(${eb.ref('currency')}) = 1`.as('total'),
      'currency',
      asInt(eb.fn.countAll()).as('count'),
      asInt(paidCount(eb)).as('paid_count'),
      asInt(eb.fn.countAll().filterWhere('status', '=', 'EXPIRED')).as('expired_count'),
      asInt(eb.fn.countAll().filterWhere('status', '=', 'CANCELLED')).as('cancelled_count'),
      keptSum(eb).as('volume'),
      sql<string>`COALESCE(round(${keptSum(eb)} / NULLIF(${paidCount(eb)}, 0), 2), 0)`.as('average_amount'),
      sql<string>`COALESCE(round(100.0 * ${paidCount(eb)} / NULLIF(${eb.fn.countAll()}, 0), 2), 0)`.as('conversion_rate'),
    ])
    .groupBy((eb) => sql`ROLLUP (${eb.ref('currency')})`);
}

/** Every bucket of the period (UTC, ISO weeks), empty ones with zeros. */
function byPeriod(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined, groupBy: V1GroupBy) {
  return db
    .with('buckets', bucketsOf(groupBy, STEP[groupBy], p))
    .with('agg', () =>
      cohort(db, owner, p, currency)
        .select((eb) => [bucketOf(eb, groupBy, 'created_at').as('bucket'), asInt(eb.fn.countAll()).as('count'), asInt(paidCount(eb)).as('paid_count'), keptSum(eb).as('volume')])
        .groupBy(sql`1`),
    )
    .selectFrom('buckets as b')
    .leftJoin('agg as a', 'a.bucket', 'b.bucket')
    .select((eb) => [
      sql<string>`to_char(${eb.ref('b.bucket')}, 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`.as('date'),
      eb.fn.coalesce('a.volume', sql<string>`0`).as('volume'),
      eb.fn.coalesce('a.count', sql<number>`0`).as('count'),
      eb.fn.coalesce('a.paid_count', sql<number>`0`).as('paid_count'),
    ])
    .orderBy('b.bucket');
}

/** Paid SBP payments by the payer's bank (cards have none), with each bank's share of them. */
function byBank(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return cohort(db, owner, p, currency)
    .where('status', '=', 'PAID')
    .where('payer_bank', 'is not', null)
    .select((eb) => [
      'payer_bank as bank',
      asInt(eb.fn.countAll()).as('count'),
      eb.fn.sum<string>(keptOf(eb)).as('volume'),
      sql<string>`round(100.0 * count(*) / sum(count(*)) OVER (), 2)`.as('percentage'),
    ])
    .groupBy('payer_bank')
    .orderBy((eb) => eb.fn.countAll(), 'desc')
    .orderBy('payer_bank');
}

/**
 * Analytics v1, aggregated by Postgres over the invoices created in the period (a cohort):
 * counts by their status now, money of those paid, net of refunds. Three statements side by side.
 */
export async function v1AnalyticsOf(db: Db, owner: Owner, period: Period, q: { groupBy: V1GroupBy; currency?: Tables.Currency }) {
  const [currencies, periods, banks] = await Promise.all([
    byCurrency(db, owner, period, q.currency).execute(),
    byPeriod(db, owner, period, q.currency, q.groupBy).execute(),
    byBank(db, owner, period, q.currency).execute(),
  ]);
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
